// Who this tab is: "Sign in" for a guest (a dialog with user name and password, and
// "Create account" where the server takes sign-ups), the user's display name and a menu with
// "Sign out" once signed in. Signing in, up or out changes the tab's session;
// `switchSession` (app.js) reopens what is open under the new one.
import { $ } from './ui.js';

const MIN_PASSWORD = 8; // the server's rule: at least 8 characters

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

/** What to say for a refused sign-up (ApiError). */
export function signUpError(e) {
  if (e.code === 'name_taken') return 'That user name is taken: choose another.';
  if (e.code === 'signup_off') return 'This server no longer takes new accounts: ask its operator for one.';
  if (e.code === 'invalid_field') {
    // The message names the field first ("password: is required: at least 8 characters…").
    const field = String(e.message).split(':')[0];
    if (field === 'password') return `The password needs at least ${MIN_PASSWORD} characters.`;
    if (field === 'displayName') return 'Your name can be 1 to 100 characters.';
    if (field === 'name') return 'A user name is 1 to 64 letters, digits and . _ - @.';
  }
  if (e.status === 429) return 'Too many attempts. Try again later.';
  if (e.retryable) return 'The server cannot be reached. Try again.';
  return `Could not create the account: ${e.message}`;
}

export class AccountUI {
  constructor(api, { switchSession }) {
    this.api = api;
    this.switchSession = switchSession;
    this.required = false; // the server takes no guests: the dialog cannot be dismissed
    this.signingUp = false; // the dialog makes an account rather than signing in
    this.dialog = $('#signin-dialog');
    this.menu = $('#account-menu');
    this.menuButton = $('#account-button');
    $('#signin-button').addEventListener('click', () => this.openSignIn());
    $('#signin-form').addEventListener('submit', (e) => { e.preventDefault(); this.submit(); });
    $('#signin-cancel').addEventListener('click', () => this.dialog.close());
    $('#signup-switch').addEventListener('click', () => this.setMode(!this.signingUp));
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
    this.setMode(false);
    if (!this.dialog.open) this.dialog.showModal();
    $('#signin-user').focus();
    this.offerSignUp();
  }

  /**
   * "Create account" shows only where the server takes sign-ups; asked each time the dialog
   * opens, as the operator may change it. Unknown (an older server, no answer): not offered.
   */
  async offerSignUp() {
    let open = false;
    try { open = (await this.api.accounts()).signup === 'open'; } catch { /* not offered */ }
    $('#signup-offer').hidden = !open;
    this.dialog.dataset.signup = open ? 'open' : 'off'; // known now (the tests wait for it)
    if (!open && this.signingUp) this.setMode(false);
  }

  /** The dialog signs in (false) or makes an account (true); what was typed stays. */
  setMode(signingUp) {
    this.signingUp = signingUp;
    $('#signin-heading').textContent = signingUp ? 'Create account' : 'Sign in';
    $('#signin-submit').textContent = signingUp ? 'Create account' : 'Sign in';
    $('#signup-question').textContent = signingUp ? 'Have an account?' : 'No account yet?';
    $('#signup-switch').textContent = signingUp ? 'Sign in' : 'Create account';
    $('#signup-display-field').hidden = !signingUp;
    $('#signup-password-hint').hidden = !signingUp;
    $('#signin-password').autocomplete = signingUp ? 'new-password' : 'current-password';
    $('#signin-error').textContent = '';
    $('#signin-password').value = '';
    if (this.dialog.open) $('#signin-user').focus();
  }

  async submit() {
    const user = $('#signin-user').value.trim();
    const password = $('#signin-password').value;
    const display = $('#signup-display').value.trim();
    const error = $('#signin-error');
    const signingUp = this.signingUp;
    if (!user || !password) {
      error.textContent = signingUp ? 'Choose a user name and a password.' : 'Enter your user name and password.';
      return;
    }
    if (signingUp && [...password].length < MIN_PASSWORD) {
      error.textContent = `The password needs at least ${MIN_PASSWORD} characters.`;
      $('#signin-password').focus();
      return;
    }
    const button = $('#signin-submit');
    button.disabled = true;
    error.textContent = '';
    try {
      await this.switchSession(() => (signingUp ? this.api.signUp(user, password, display) : this.api.signIn(user, password)));
    } catch (e) {
      error.textContent = signingUp ? signUpError(e) : signInError(e);
      if (signingUp && e.code === 'name_taken') $('#signin-user').select();
      else $('#signin-password').select();
      return;
    } finally {
      button.disabled = false;
    }
    $('#signin-password').value = '';
    $('#signup-display').value = '';
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
