import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { Output } from '../../../src/cli/output.js';

function capture(isTTY: boolean): { stream: Writable & { isTTY?: boolean }; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  }) as Writable & { isTTY?: boolean };
  stream.isTTY = isTTY;
  return { stream, text: () => text };
}

const HOSTILE = 'Latte\u001b[2J\u001b]8;;https://evil.example\u0007x\u001b]8;;\u0007\b\rFORGED';
const SHOWN = 'Latte\\x1b[2J\\x1b]8;;https://evil.example\\x07x\\x1b]8;;\\x07\\x08\\rFORGED';

it('every way Output prints shows control characters as escapes; only plan colours are sent raw', () => {
  const stdout = capture(true);
  const stderr = capture(false);
  const out = new Output({
    json: false,
    env: { TERM: 'xterm' },
    stdout: stdout.stream,
    stderr: stderr.stream,
  });
  out.line(`create ${HOSTILE}\nsecond line`);
  out.planLine(`  create ${HOSTILE}\nnot a second line`);
  out.warn(`mbulk: ${HOSTILE}`);
  out.urgent(`urgent ${HOSTILE}`);
  out.notice(`notice ${HOSTILE}`);
  expect(stdout.text()).toBe(
    `create ${SHOWN}\nsecond line\n\u001b[32m  create ${SHOWN}\\nnot a second line\u001b[0m\n`,
  );
  expect(stderr.text()).toBe(`mbulk: ${SHOWN}\nurgent ${SHOWN}\n\nmbulk: notice ${SHOWN}\n`);
});

it('a notice shown inside the progress display is one visible line', () => {
  const out = new Output({
    json: false,
    env: {},
    stdout: capture(false).stream,
    stderr: capture(false).stream,
  });
  const notices: string[] = [];
  out.progress.notice = (text) => notices.push(text);
  out.notice(`stopping ${HOSTILE}\nx`);
  expect(notices).toEqual([`stopping ${SHOWN}\\nx`]);
});
