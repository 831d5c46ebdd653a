import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { XlsxSheetWriter, type XlsxSheet } from './xlsx-sheet-writer.js';
import {
  threadError,
  type FromXlsxThread,
  type ToXlsxThread,
  type XlsxThreadData,
} from './xlsx-thread-protocol.js';

/**
 * The worker thread of XlsxThreadWriter: an XlsxSheetWriter (exceljs, the zip, its CRC-32 and the
 * deflate's hand-offs, the spool files, the workbook's temporary file) fed the rows' XML the
 * calling thread made. Messages are handled one after another, in the order they were sent; rows
 * are acknowledged once written (after waiting for the zip when it is behind), which is the caller's
 * backpressure.
 */
if (!parentPort) throw new Error('xlsx-thread-worker.js runs as a worker thread');
const port: MessagePort = parentPort;
const data = workerData as XlsxThreadData;
const writer = new XlsxSheetWriter(data.path, {
  format: 'xlsx',
  currencyDecimals: data.currencyDecimals,
  ...(data.timezone === undefined ? {} : { timezone: data.timezone }),
});
const sheets: XlsxSheet[] = [];
/** Set once writing rows failed: later rows are dropped, the next call answers with it. */
let failure: unknown = null;
const send = (message: FromXlsxThread): void => port.postMessage(message);

void writer.temporaryPaths().then((paths) => send({ op: 'files', ...paths }));

async function handle(message: ToXlsxThread): Promise<void> {
  if (message.op === 'rows') {
    if (failure === null) {
      try {
        const { bytes } = message;
        const xml = Buffer.from(bytes, 0, message.length);
        // The chunk goes back to the caller to be filled again once written: no garbage per chunk.
        const written = (): void =>
          port.postMessage({ op: 'chunk', bytes } satisfies FromXlsxThread, [bytes]);
        const wait = (sheets[message.sheet] as XlsxSheet).writeXml(xml, message.rows, written);
        if (wait) await wait;
      } catch (error) {
        failure = error;
        send({ op: 'failed', error: threadError(error) });
      }
    }
    send({ op: 'ack', bytes: message.length });
    return;
  }
  try {
    let styleAttrs: string[] | undefined;
    switch (message.op) {
      case 'addSheet': {
        if (failure !== null) throw failure;
        const sheet = await writer.addSheet(message.spec);
        sheets.push(sheet);
        styleAttrs = sheet.styleAttrs;
        send({ op: 'files', ...(await writer.temporaryPaths()) });
        break;
      }
      case 'end':
        if (failure !== null) throw failure;
        await (sheets[message.sheet] as XlsxSheet).end();
        break;
      case 'close':
        // After a failure of the rows the workbook is dropped, as close does after a failed write.
        if (failure !== null) {
          await writer.abort();
          throw failure;
        }
        await writer.close();
        break;
      case 'abort':
        await writer.abort();
        break;
    }
    send({ op: 'done', id: message.id, ...(styleAttrs ? { styleAttrs } : {}) });
  } catch (error) {
    send({ op: 'done', id: message.id, error: threadError(error) });
  }
}

let queue = Promise.resolve();
port.on('message', (message: ToXlsxThread) => {
  queue = queue.then(() => handle(message));
});
