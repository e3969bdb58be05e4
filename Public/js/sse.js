// Server-Sent Events over fetch, because EventSource cannot send the Authorization header
// and the server ties presence and pasteboard events to the session. Follows the WHATWG
// parsing rules (id/event/data/retry fields, comments, CRLF), sends Last-Event-ID when it
// reconnects, and reconnects on its own with backoff. An answer that is not the stream
// goes to onRefused, which may end it for good (the document is gone, or no longer ours to
// read) or have it reconnect at once (a refused share link, now forgotten).
import { errorOf } from './api.js';

export class EventStream {
  /**
   * @param url the stream's address
   * @param headers () => headers for each connection (the token may change)
   * @param onEvent ({type, data, id}) for every dispatched event
   * @param onStatus ('connecting' | 'open' | 'closed') when the connection changes
   * @param resumeFrom () => the id to resume after; defaults to the last id seen
   */
  constructor(url, { headers, onEvent, onStatus, lastEventId = null, resumeFrom = null, onRefused = null }) {
    this.onRefused = onRefused; // (ApiError, headers sent) => 'stop' | 'again' | undefined (back off)
    this.resumeFrom = resumeFrom;
    this.url = url;
    this.headers = headers;
    this.onEvent = onEvent;
    this.onStatus = onStatus || (() => {});
    this.lastEventId = lastEventId;
    this.retry = 1000;
    this.failures = 0;
    this.stopped = true;
    this.controller = null;
    this.timer = null;
  }

  get open() { return this.status === 'open'; }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  /** Closes the connection and stays closed until start(). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.controller) this.controller.abort();
    this.controller = null;
    this.setStatus('closed');
  }

  /** Reconnects at once if waiting out a backoff (the server was heard from again). */
  reconnectNow() {
    if (this.stopped || this.controller || this.status === 'open') return;
    clearTimeout(this.timer);
    this.failures = 0;
    this.connect();
  }

  setStatus(s) {
    if (this.status === s) return;
    this.status = s;
    this.onStatus(s);
  }

  async connect() {
    if (this.stopped) return;
    this.setStatus('connecting');
    const controller = new AbortController();
    this.controller = controller;
    const headers = { Accept: 'text/event-stream', ...this.headers() };
    const resume = this.resumeFrom ? this.resumeFrom() : this.lastEventId;
    if (resume !== null && resume !== undefined) headers['Last-Event-ID'] = String(resume);
    let verdict;
    try {
      const res = await fetch(this.url, { headers, signal: controller.signal, cache: 'no-store' });
      if (!res.ok && this.onRefused) verdict = await this.onRefused(await errorOf(res), headers);
      if (!res.ok || !res.body) throw new Error(`status ${res.status}`);
      this.failures = 0;
      this.setStatus('open');
      await this.read(res.body.getReader(), controller);
    } catch (e) {
      // An abort is our own stop() or a test hook: nothing to report.
    }
    if (this.controller === controller) this.controller = null;
    if (this.stopped || controller.signal.aborted) return;
    if (verdict === 'stop') { this.stop(); return; }
    if (verdict === 'again') { this.connect(); return; }
    this.setStatus('connecting');
    this.failures += 1;
    const delay = Math.min(this.retry * 2 ** Math.min(this.failures - 1, 4), 15000);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  async read(reader, controller) {
    const decoder = new TextDecoder();
    let buffer = '';
    let data = [];
    let type = '';
    let id = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done || controller.signal.aborted) return;
      buffer += decoder.decode(value, { stream: true });
      let nl;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        const skip = buffer[nl] === '\r' && buffer[nl + 1] === '\n' ? 2 : 1;
        // A lone \r at the very end may be half of \r\n: wait for more.
        if (buffer[nl] === '\r' && nl + 1 === buffer.length) break;
        buffer = buffer.slice(nl + skip);
        if (line === '') {
          if (id !== null) this.lastEventId = id;
          if (data.length) {
            const event = { type: type || 'message', data: data.join('\n'), id: this.lastEventId };
            try { this.onEvent(event); } catch (e) { console.warn('event handler failed', e); }
          }
          data = []; type = ''; id = null;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? '' : line.slice(colon + 1);
        if (val.startsWith(' ')) val = val.slice(1);
        if (field === 'data') data.push(val);
        else if (field === 'event') type = val;
        else if (field === 'id' && !val.includes('\0')) id = val;
        else if (field === 'retry' && /^\d+$/.test(val)) this.retry = Number(val);
      }
    }
  }
}
