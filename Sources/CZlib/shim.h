#ifndef TANDEM_CZLIB_SHIM_H
#define TANDEM_CZLIB_SHIM_H
#include <zlib.h>

// deflateInit2 is a macro; windowBits 15 + 16 asks zlib for a gzip wrapper.
static inline int shim_deflateInit2_gzip(z_streamp strm, int level) {
    return deflateInit2(strm, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int shim_inflateInit2_gzip(z_streamp strm) {
    return inflateInit2(strm, 15 + 16);
}
// Negative windowBits: raw deflate, no wrapper (a gzip stream's pieces, see GzipStream).
static inline int shim_deflateInit2_raw(z_streamp strm, int level) {
    return deflateInit2(strm, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
static inline int shim_inflateInit2_raw(z_streamp strm) {
    return inflateInit2(strm, -15);
}
#endif
