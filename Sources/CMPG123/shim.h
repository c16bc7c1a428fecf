#ifndef JUKEBOX_CMPG123_SHIM_H
#define JUKEBOX_CMPG123_SHIM_H
#include <stdint.h>
#include <sys/types.h>
#include <mpg123.h>

/* libmpg123 1.31 (Debian 12) declares its offset API with off_t, whose width and symbol
   name depend on _FILE_OFFSET_BITS on 32-bit ARM (mpg123.h renames the calls with macros
   that Swift cannot see). These wrappers give Swift one int64_t signature everywhere. */
static inline int64_t jb_mpg123_length(mpg123_handle *h) { return (int64_t)mpg123_length(h); }
static inline int64_t jb_mpg123_tell(mpg123_handle *h) { return (int64_t)mpg123_tell(h); }
static inline int64_t jb_mpg123_seek(mpg123_handle *h, int64_t frame, int whence) {
    return (int64_t)mpg123_seek(h, (off_t)frame, whence);
}
static inline int jb_mpg123_set_filesize(mpg123_handle *h, int64_t size) {
    return mpg123_set_filesize(h, (off_t)size);
}
/* mpg123_param takes a long and a double; the flag constants are enums Swift imports fine. */
#endif
