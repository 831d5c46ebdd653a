import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageTemplate } from '../../../src/schema/index.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { client, envelope, type Json } from './sandbox-client.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startSandbox();
  api = client(sb);
});
afterAll(async () => {
  await sb.close();
});

async function review(name: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${sb.url}/__sandbox/templates/${name}/review`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
}

describe('message templates', () => {
  it('creates PENDING templates with their body variables as parameters', async () => {
    const r = await api.post('/api/v2/message_templates', {
      name: 'order_ready',
      body: 'Hi {{name}}, order {{number}} is ready. {{name}}!',
      category: 'UTILITY',
      footer: 'Thanks',
    });
    expect(r.status).toBe(200);
    expect(MessageTemplate.safeParse(r.body).success).toBe(true);
    expect(r.body).toMatchObject({
      status: 'PENDING',
      parameters: ['name', 'number'],
      language: 'en',
      header: null,
    });
  });

  it('enforces every constraint with a param', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'Bad-Name', body: 'x', category: 'UTILITY' }, 'name'],
      [{ name: 'a'.repeat(513), body: 'x', category: 'UTILITY' }, 'name'],
      [{ name: 'ok1', body: '', category: 'UTILITY' }, 'body'],
      [{ name: 'ok2', body: 'x'.repeat(1025), category: 'UTILITY' }, 'body'],
      [{ name: 'ok3', body: 'x', category: 'AUTHENTICATION' }, 'category'],
      [{ name: 'ok4', body: 'x', category: 'UTILITY', header: 'h'.repeat(61) }, 'header'],
      [{ name: 'ok5', body: 'x', category: 'UTILITY', footer: 'Hi {{name}}' }, 'footer'],
      [
        { name: 'ok6', body: 'x', category: 'UTILITY', header: 'h', header_image_url: 'https://a.b/c.png' },
        'header_image_url',
      ],
      [
        { name: 'ok7', body: 'x', category: 'UTILITY', header_image_url: 'http://a.b/c.png' },
        'header_image_url',
      ],
      [{ name: 'ok8', body: 'x', category: 'UTILITY', buttons: [{}, {}, {}, {}] }, 'buttons'],
      [{ body: 'x', category: 'UTILITY' }, 'name'],
    ];
    for (const [body, param] of cases) {
      const r = await api.post('/api/v2/message_templates', body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(envelope(r).param, JSON.stringify(body).slice(0, 80)).toBe(param);
    }
    await api.post('/api/v2/message_templates', { name: 'unique_one', body: 'x', category: 'MARKETING' });
    const dup = await api.post('/api/v2/message_templates', {
      name: 'unique_one',
      body: 'y',
      category: 'UTILITY',
    });
    expect(envelope(dup).param).toBe('name');
  });

  it('lists with status, category and name-contains filters', async () => {
    await api.post('/api/v2/message_templates', { name: 'promo_nov', body: 'Sale!', category: 'MARKETING' });
    await api.post('/api/v2/message_templates', { name: 'promo_dec', body: 'Sale!', category: 'MARKETING' });
    await review('promo_dec', { status: 'APPROVED', category: 'UTILITY' });
    const promo = await api.all('/api/v2/message_templates?name=promo');
    expect(promo.map((t: Json) => t.name).sort()).toEqual(['promo_dec', 'promo_nov']);
    const approved = await api.all('/api/v2/message_templates?status=APPROVED&name=promo');
    expect(approved.map((t: Json) => [t.name, t.category])).toEqual([['promo_dec', 'UTILITY']]);
    const marketing = await api.all('/api/v2/message_templates?category=MARKETING&name=promo');
    expect(marketing.map((t: Json) => t.name)).toEqual(['promo_nov']);
    expect(envelope(await api.get('/api/v2/message_templates?status=NOPE')).param).toBe('status');
  });
});

describe('messages', () => {
  it('sends only with an APPROVED template and every named parameter', async () => {
    await api.post('/api/v2/message_templates', {
      name: 'greet',
      body: 'Hi {{name}}, {{code}}',
      category: 'UTILITY',
    });
    const pending = await api.post('/api/v2/messages', {
      to: '60123456789',
      template: 'greet',
      parameters: { name: 'A', code: '1' },
    });
    expect(envelope(pending)).toMatchObject({ type: 'invalid_request_error', param: 'template' });

    const rev = await review('greet', { status: 'APPROVED' });
    expect(rev.status).toBe(200);
    const missing = await api.post('/api/v2/messages', {
      to: '60123456789',
      template: 'greet',
      parameters: { name: 'A' },
    });
    expect(envelope(missing).param).toBe('parameters.code');
    const plus = await api.post('/api/v2/messages', {
      to: '+60123456789',
      template: 'greet',
      parameters: { name: 'A', code: '1' },
    });
    expect(envelope(plus).param).toBe('to');
    const unknown = await api.post('/api/v2/messages', { to: '1', template: 'nope' });
    expect(envelope(unknown).param).toBe('template');

    const ok = await api.post('/api/v2/messages', {
      to: '60123456789',
      template: 'greet',
      parameters: { name: 'A', code: '1' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      object: 'message',
      to: '60123456789',
      template: 'greet',
      status: 'sent',
    });
    const sent = (await (await fetch(`${sb.url}/__sandbox/messages`)).json()) as Json;
    expect(sent).toHaveLength(1);
    expect(sent[0].parameters).toEqual({ name: 'A', code: '1' });

    await review('greet', { status: 'PAUSED' });
    const paused = await api.post('/api/v2/messages', {
      to: '60123456789',
      template: 'greet',
      parameters: { name: 'A', code: '1' },
    });
    expect(envelope(paused).param).toBe('template');
  });

  it('reviews reject with a reason; unknown templates are 404', async () => {
    await api.post('/api/v2/message_templates', { name: 'to_reject', body: 'x', category: 'MARKETING' });
    const r = await review('to_reject', { status: 'REJECTED', rejected_reason: 'INVALID_FORMAT' });
    expect(await r.json()).toMatchObject({ status: 'REJECTED', rejected_reason: 'INVALID_FORMAT' });
    expect((await review('missing_tpl', { status: 'APPROVED' })).status).toBe(404);
    expect((await review('to_reject', { status: 'MAYBE' })).status).toBe(400);
  });
});
