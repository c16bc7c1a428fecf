#ifndef JUKEBOX_LAZY_LIBRARIES_H
#define JUKEBOX_LAZY_LIBRARIES_H

/* The decoder libraries (and libsoxr, with the libgomp it pulls in: 380 kB resident; libsonic,
   the time-stretcher; libxml2 for podcast feeds, which links ICU, libstdc++, liblzma and zlib;
   libespeak-ng for spoken announcements, with its 1 MB of code and its voice data; libcurl,
   whose Debian build pulls in 30 libraries, 6 MB resident; and FFmpeg for MP4, the minimal
   build's one library or Debian's three with their 130) that jukeboxd opens on first use
   (dlopen) instead of linking: a box that plays only MP3 on a device that takes its rate maps
   none of them. This is the only place the process calls dlopen. lazy_libraries.c defines every function of theirs that
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
    JB_LIB_CURL = 8, /* curl_global_init runs once, as part of the load */
    /* FFmpeg: the minimal build (jb_lazy_minimal_ffmpeg_dir) serves all three when there is
       one, else Debian's by the sonames of the headers' majors. Load them in this order. */
    JB_LIB_AVUTIL = 9,
    JB_LIB_AVCODEC = 10,
    JB_LIB_AVFORMAT = 11,
    JB_LIB_COUNT = 12
};

/* Loads `library` (once; any thread). NULL on success, else dlerror's text. */
const char *jb_lazy_load(int library);

/* The soname jb_lazy_load opens ("libFLAC.so.12"; for FFmpeg, Debian's, which the minimal
   build replaces when there is one). */
const char *jb_lazy_soname(int library);

/* The folder of the minimal FFmpeg build (Board/build-ffmpeg.sh: libjukebox-ffmpeg.so, the
   MP4 and ADTS demuxers and the AAC and ALAC decoders of Debian's FFmpeg source in one library;
   1 MB resident where Debian's libraries cost 25 MB), which the FFmpeg loads take instead of
   Debian's: `../lib/jukebox` beside the executable (a package, Board/install.sh), else the build
   cache of the checkout the executable lies in. NULL when neither holds one built for this
   machine: Debian's are loaded then, and jb_lazy_minimal_ffmpeg_searched() says where it looked.
   Found once (thread-safe). */
const char *jb_lazy_minimal_ffmpeg_dir(void);
const char *jb_lazy_minimal_ffmpeg_searched(void);

/* libFLAC's status texts (arrays, which dlsym gives as data). */
const char *jb_flac_error_status_string(int status);
const char *jb_flac_init_status_string(int status);
const char *jb_flac_iterator_status_string(int status);
#endif
