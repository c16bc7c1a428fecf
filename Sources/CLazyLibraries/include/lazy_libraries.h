#ifndef JUKEBOX_LAZY_LIBRARIES_H
#define JUKEBOX_LAZY_LIBRARIES_H

/* The decoder libraries (and libsoxr, with the libgomp it pulls in: 380 kB resident; libsonic,
   the time-stretcher; libxml2 for podcast feeds, which links ICU, libstdc++, liblzma and zlib; and
   libespeak-ng for spoken announcements, with its 1 MB of code and its voice data) that
   jukeboxd opens on first use (dlopen) instead of linking: a box that plays only MP3 on a
   device that takes its rate maps none of them. lazy_libraries.c defines every function of theirs that
   the wrappers call, with the library's own prototype and hidden visibility; each looks the
   real one up once (dlsym) and calls it. Call jb_lazy_load first: once it succeeded, the
   stubs cannot fail (the soname pins the ABI). */
enum {
    JB_LIB_FLAC = 0,
    JB_LIB_OGG = 1,
    JB_LIB_VORBISFILE = 2,
    JB_LIB_OPUSFILE = 3,
    JB_LIB_SOXR = 4,
    JB_LIB_SONIC = 5,
    JB_LIB_XML2 = 6,
    JB_LIB_ESPEAK = 7,
    JB_LIB_COUNT = 8
};

/* Loads `library` (once; any thread). NULL on success, else dlerror's text. */
const char *jb_lazy_load(int library);

/* The soname jb_lazy_load opens ("libFLAC.so.12"). */
const char *jb_lazy_soname(int library);

/* libFLAC's status texts (arrays, which dlsym gives as data). */
const char *jb_flac_error_status_string(int status);
const char *jb_flac_init_status_string(int status);
const char *jb_flac_iterator_status_string(int status);
#endif
