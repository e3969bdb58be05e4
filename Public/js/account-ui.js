// Who this tab is: "Sign in" for a guest (a dialog with user name and password), the
// user's display name and a menu with "Sign out" once signed in. Signing in or out changes
// the tab's session; `switchSession` (app.js) reopens what is open under the new one.
import { $ } from './ui.js';

/** What to say for a refused sign-in (ApiError). */
export function signInError(e) {
  if (e.code === 'invalid_credentials' || e.status === 401) return 'Wrong user name or password.';
  if (e.status === 429) {
    const s = e.retryAfter;
    return s ? `Too many attempts. Try again in ${s} second${s === 1 ? '' : 's'}.` : 'Too many attempts. Try again later.';
  }
  if (e.retryable) return 'The server cannot be reached. Try again.';
  return `Could not sign in: ${e.message}`;
}

export class AccountUI {
  constructor(api, { switchSession }) {
    this.api = api;
    this.switchSession = switchSession;
    this.required = false; // the server takes no guests: the dialog cannot be dismissed
    this.dialog = $('#signin-dialog');
    this.menu = $('#account-menu');
    this.menuButton = $('#account-button');
    $('#signin-button').addEventListener('click', () => this.openSignIn());
    $('#signin-form').addEventListener('submit', (e) => { e.preventDefault(); this.submit(); });
    $('#signin-cancel').addEventListener('click', () => this.dialog.close());
    // Escape closes a dialog, unless there is nothing to go back to.
    this.dialog.addEventListener('cancel', (e) => { if (this.required) e.preventDefault(); });
    this.menuButton.addEventListener('click', () => this.toggleMenu());
    $('#signout-button').addEventListener('click', () => this.signOut());
    document.addEventListener('click', (e) => {
      if (!this.menu.hidden && !$('#account').contains(e.target)) this.toggleMenu(false);
    });
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.menu.hidden) { this.toggleMenu(false); this.menuButton.focus(); }
    });
    api.onSessionChange(() => this.render());
    api.onSignInRequired(() => this.openSignIn({ required: true }));
    this.render();
  }

  render() {
    const s = this.api.session;
    const user = !!(s && s.user);
    $('#signin-button').hidden = user;
    $('#account').hidden = !user;
    if (user) {
      $('#account-name').textContent = s.name;
      $('#account-who').textContent = s.name;
      this.menuButton.title = `Signed in as ${s.name}`;
      this.menuButton.setAttribute('aria-label', `Account: ${s.name}`);
    } else {
      this.toggleMenu(false);
    }
  }

  toggleMenu(open = this.menu.hidden) {
    this.menu.hidden = !open;
    this.menuButton.setAttribute('aria-expanded', String(open));
    if (open) $('#signout-button').focus();
  }

  openSignIn({ required = false } = {}) {
    this.required = required;
    $('#signin-about').hidden = !required;
    $('#signin-cancel').hidden = required;
    $('#signin-error').textContent = '';
    $('#signin-password').value = '';
    if (!this.dialog.open) this.dialog.showModal();
    $('#signin-user').focus();
  }

  async submit() {
    const user = $('#signin-user').value.trim();
    const password = $('#signin-password').value;
    const error = $('#signin-error');
    if (!user || !password) {
      error.textContent = 'Enter your user name and password.';
      return;
    }
    const button = $('#signin-submit');
    button.disabled = true;
    error.textContent = '';
    try {
      await this.switchSession(() => this.api.signIn(user, password));
    } catch (e) {
      error.textContent = signInError(e);
      $('#signin-password').select();
      return;
    } finally {
      button.disabled = false;
    }
    $('#signin-password').value = '';
    this.required = false;
    this.dialog.close();
  }

  async signOut() {
    this.toggleMenu(false);
    try {
      await this.switchSession(() => this.api.signOut());
    } catch (e) {
      // The tab has no session now: the next request starts one (or asks to sign in).
      if (e.code !== 'guests_off') console.warn('sign out:', e);
    }
  }
}
