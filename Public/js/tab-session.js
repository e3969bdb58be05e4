// One tab, one session. A duplicated tab (Duplicate Tab, window.open) starts with a copy of
// its opener's sessionStorage, so with its session; but a session is one tab's undo
// context: two tabs typing as one break each other's typing groups (each tab tells the
// server its own caret, and a caret that jumps ends a group). A tab that finds its session
// in sessionStorage asks the other tabs of this browser whether one of them holds it; if one
// answers, it takes a session of its own.

const CHANNEL = 'tandem.sessions';
const WAIT_MS = 120; // tabs of one browser answer in a few ms

export class TabSession {
  constructor() {
    this.tab = Math.random().toString(36).slice(2);
    this.held = null; // the session id this tab holds, once settled
    this.channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
    if (this.channel) {
      this.channel.addEventListener('message', (e) => {
        const m = e.data || {};
        if (m.ask && m.ask === this.held && m.from !== this.tab) this.channel.postMessage({ taken: m.ask, to: m.from });
      });
    }
  }

  /** Resolves true when another tab holds session `id` (this tab must then take another). */
  taken(id) {
    if (!this.channel || !id) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onMessage = (e) => {
        const m = e.data || {};
        if (m.taken === id && m.to === this.tab) finish(true);
      };
      const finish = (result) => {
        clearTimeout(timer);
        this.channel.removeEventListener('message', onMessage);
        resolve(result);
      };
      const timer = setTimeout(() => finish(false), WAIT_MS);
      this.channel.addEventListener('message', onMessage);
      this.channel.postMessage({ ask: id, from: this.tab });
    });
  }

  /** This tab now holds `id`: it answers for it from now on. */
  hold(id) { this.held = id; }
}
