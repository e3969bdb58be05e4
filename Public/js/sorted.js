// Sorted arrays of positions (line starts, block starts), searched in a logarithm of their length.

/** The index of the last entry at or before `pos` in the ascending `starts` (0 if none is). */
export function lastAtOrBefore(starts, pos) {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= pos) lo = mid; else hi = mid - 1;
  }
  return lo;
}
