// Shake to undo, as on iOS: a few strong jolts within a short time count as one shake.
// The setting lives in localStorage; iOS asks for motion permission on a user gesture.

const KEY = 'tandem.shakeToUndo';
const THRESHOLD = 14; // m/s² of acceleration without gravity
const JOLTS = 3;
const WINDOW_MS = 900;
const COOLDOWN_MS = 1500;

export const shakeSetting = {
  get enabled() { return localStorage.getItem(KEY) !== 'off'; },
  set enabled(on) { localStorage.setItem(KEY, on ? 'on' : 'off'); },
};

/** Asks for motion access where the platform requires it (iOS 13+). Call on a click. */
export async function requestMotionPermission() {
  const DME = window.DeviceMotionEvent;
  if (DME && typeof DME.requestPermission === 'function') {
    try { return (await DME.requestPermission()) === 'granted'; } catch { return false; }
  }
  return true;
}

/** Calls `onShake()` when the device is shaken and the setting is on. */
export function watchShake(onShake) {
  let jolts = [];
  let last = -Infinity;
  window.addEventListener('devicemotion', (e) => {
    if (!shakeSetting.enabled) return;
    const a = e.acceleration && e.acceleration.x !== null ? e.acceleration : null;
    const g = e.accelerationIncludingGravity;
    let magnitude;
    if (a) magnitude = Math.hypot(a.x || 0, a.y || 0, a.z || 0);
    else if (g) magnitude = Math.abs(Math.hypot(g.x || 0, g.y || 0, g.z || 0) - 9.81);
    else return;
    const now = e.timeStamp || performance.now();
    if (magnitude < THRESHOLD) return;
    jolts = jolts.filter((t) => now - t < WINDOW_MS);
    jolts.push(now);
    if (jolts.length >= JOLTS && now - last > COOLDOWN_MS) {
      last = now;
      jolts = [];
      onShake();
    }
  });
}
