#define OV_EXCLUDE_STATIC_CALLBACKS
/* opusfile.h gives its declarations default visibility by a pragma under this test; the
   definitions here must stay hidden, so that the loaded libraries' own calls never bind to
   them. */
#define OP_GNUC_PREREQ(major, minor) 0
/* curl.h's type-checking macros would rename the definitions of curl_easy_setopt and
   curl_easy_getinfo below; the callers (curl_transfer.c) keep them. */
#define CURL_DISABLE_TYPECHECK
#include "lazy_libraries.h"

#include <FLAC/metadata.h>
#include <libxml/xmlreader.h>
#include <FLAC/stream_decoder.h>
#include <curl/curl.h>
#include <dlfcn.h>
#include <espeak-ng/speak_lib.h>
#include <fcntl.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <limits.h>
#include <ogg/ogg.h>
#include <opusfile.h>
#include <pthread.h>
#include <sonic.h>
#include <soxr.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vorbis/vorbisfile.h>

#define SONAME(lib, major) "lib" lib ".so." AV_STRINGIFY(major)

/* Debian 12's sonames (libflac12, libogg0, libvorbisfile3, libopusfile0, libsoxr0, libsonic0, libxml2,
   libespeak-ng1, libcurl4 or libcurl3-gnutls: libcurl.so.4 since 7.16 in 2006), FFmpeg's from
   the majors of the headers compiled against (so the ABI is the one its structs were laid out
   for). A test checks them against the -dev packages' links, so a distribution that moves on
   fails there. */
static const char *const sonames[JB_LIB_COUNT] = {
    "libFLAC.so.12", "libogg.so.0", "libvorbisfile.so.3", "libopusfile.so.0", "libsoxr.so.0",
    "libsonic.so.0", "libxml2.so.2", "libespeak-ng.so.1", "libcurl.so.4",
    SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR),
    SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR)};
static void *handles[JB_LIB_COUNT];
static const char *failures[JB_LIB_COUNT];
static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

const char *jb_lazy_soname(int library) { return sonames[library]; }

static int is_ffmpeg(int library) {
    return library == JB_LIB_AVUTIL || library == JB_LIB_AVCODEC || library == JB_LIB_AVFORMAT;
}

/* MARK: where the minimal FFmpeg is */

static pthread_once_t find_once = PTHREAD_ONCE_INIT;
static char minimal_ffmpeg[PATH_MAX];
static char searched[2 * PATH_MAX + 8];

/* The minimal build: FFmpeg's three libraries linked into one (Board/build-ffmpeg.sh). */
#define MINIMAL_FFMPEG "libjukebox-ffmpeg.so"

/* A file's ELF machine (e_machine, little-endian as on every board this runs on), or -1. */
static int elf_machine(const char *path) {
    unsigned char h[20];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? pread(fd, h, sizeof h, 0) : -1;
    if (fd >= 0) close(fd);
    return n == (ssize_t)sizeof h && memcmp(h, "\177ELF", 4) == 0 ? h[18] | h[19] << 8 : -1;
}

/* The library is there and built for this machine (a checkout's cache may hold the host's
   while an arm64 build of the daemon runs under qemu). */
static int holds_minimal_ffmpeg(const char *dir) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/" MINIMAL_FFMPEG, dir) >= (int)sizeof path) return 0;
    int machine = elf_machine(path);
    return machine >= 0 && machine == elf_machine("/proc/self/exe");
}

static void consider(const char *dir) {
    if (minimal_ffmpeg[0]) return;
    char resolved[PATH_MAX];
    if (realpath(dir, resolved) && holds_minimal_ffmpeg(resolved)) {
        snprintf(minimal_ffmpeg, sizeof minimal_ffmpeg, "%s", resolved);
        return;
    }
    size_t n = strlen(searched);
    snprintf(searched + n, sizeof searched - n, "%s%s", n ? ", " : "", dir);
}

/* The installed place first, beside the binary as a package puts it (/usr/bin/jukeboxd:
   /usr/lib/jukebox; Board/install.sh: /usr/local/lib/jukebox), then the cache of the checkout
   the binary was built in (Board/build-ffmpeg.sh's .build/ffmpeg-minimal/lib), found from the
   binary's own place (.build/<triple>/debug/jukeboxd, .build-static/<triple>/release/jukeboxd:
   a checkout three folders up), so that no build path is written into the binary. */
static void find_minimal_ffmpeg(void) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return;
    *slash = 0;
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/../lib/jukebox", exe) < (int)sizeof dir) consider(dir);
    for (int up = 0; up < 4 && !minimal_ffmpeg[0]; up++) {
        char build[PATH_MAX];
        struct stat info;
        if (snprintf(build, sizeof build, "%s/.build", exe) < (int)sizeof build && stat(build, &info) == 0 &&
            S_ISDIR(info.st_mode) && snprintf(dir, sizeof dir, "%s/ffmpeg-minimal/lib", build) < (int)sizeof dir) {
            consider(dir);
        }
        slash = strrchr(exe, '/');
        if (!slash || slash == exe) break;
        *slash = 0;
    }
}

const char *jb_lazy_minimal_ffmpeg_dir(void) {
    pthread_once(&find_once, find_minimal_ffmpeg);
    return minimal_ffmpeg[0] ? minimal_ffmpeg : NULL;
}

const char *jb_lazy_minimal_ffmpeg_searched(void) {
    pthread_once(&find_once, find_minimal_ffmpeg);
    return searched;
}

/* MARK: loading */

static const char *missing_function(int library, void *handle);

/* libcurl wants curl_global_init once before any other call: part of its load, so that a
   failure is the load's (NULL when it went well). */
static char curl_failure[256];
static const char *curl_global_setup(void *handle) {
    CURLcode (*global_init)(long) = (CURLcode(*)(long))dlsym(handle, "curl_global_init");
    const char *(*strerror_of)(CURLcode) = (const char *(*)(CURLcode))dlsym(handle, "curl_easy_strerror");
    if (global_init == NULL || strerror_of == NULL) return "libcurl.so.4 has no curl_global_init";
    CURLcode code = global_init(CURL_GLOBAL_DEFAULT);
    if (code == CURLE_OK) return NULL;
    snprintf(curl_failure, sizeof curl_failure, "curl_global_init: %s", strerror_of(code));
    return curl_failure;
}

const char *jb_lazy_load(int library) {
    if (__atomic_load_n(&handles[library], __ATOMIC_ACQUIRE) != NULL) return NULL;
    pthread_mutex_lock(&loading);
    const char *failure = NULL;
    if (handles[library] == NULL) {
        /* FFmpeg: the minimal build's one library serves for all three (dlopen gives the same
           handle each time); one that is there but does not load is an error, not a silent
           25 MB more. RTLD_LAZY: Debian's libavcodec would bind 130 libraries' symbols. */
        const char *dir = is_ffmpeg(library) ? jb_lazy_minimal_ffmpeg_dir() : NULL;
        char path[PATH_MAX];
        if (dir != NULL) snprintf(path, sizeof path, "%s/" MINIMAL_FFMPEG, dir);
        void *handle = dlopen(dir != NULL ? path : sonames[library],
                              (is_ffmpeg(library) ? RTLD_LAZY : RTLD_NOW) | RTLD_LOCAL);
        const char *missing = handle != NULL ? missing_function(library, handle) : NULL;
        char lacks[PATH_MAX + 64];
        if (missing != NULL) snprintf(lacks, sizeof lacks, "%s has no %s", dir != NULL ? path : sonames[library], missing);
        const char *text = handle == NULL    ? dlerror()
                           : missing != NULL ? lacks
                           : library == JB_LIB_CURL ? curl_global_setup(handle)
                                                    : NULL;
        if (handle == NULL || text != NULL) {
            /* dlerror's text lives until the next dl call: keep a copy (once per library). */
            if (failures[library] == NULL) failures[library] = strdup(text != NULL ? text : sonames[library]);
            failure = failures[library] != NULL ? failures[library] : sonames[library];
        } else {
            __atomic_store_n(&handles[library], handle, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&loading);
    return failure;
}

/* A symbol of a loaded library. A missing one means a library that does not match its
   soname's ABI: no way on, so say which and stop. */
static void *symbol(int library, const char *name) {
    if (jb_lazy_load(library) != NULL) {
        fprintf(stderr, "jukeboxd: %s used before it was loaded\n", sonames[library]);
        abort();
    }
    void *found = dlsym(handles[library], name);
    if (found == NULL) {
        fprintf(stderr, "jukeboxd: %s has no %s\n", sonames[library], name);
        abort();
    }
    return found;
}

/* The real function behind a stub, looked up on its first call and kept in `real`. */
static void *real_function(void **real, int library, const char *name) {
    void *fn = __atomic_load_n(real, __ATOMIC_ACQUIRE);
    if (fn == NULL) {
        fn = symbol(library, name);
        __atomic_store_n(real, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

/* Defines `name` with its header's prototype: the first call looks the real one up. */
#define LAZY(library, ret, name, params, args)                                  \
    __attribute__((visibility("hidden"))) ret name params {                     \
        static void *real;                                                      \
        return ((__typeof__(&name))real_function(&real, library, #name)) args; \
    }

#define F JB_LIB_FLAC
LAZY(F, FLAC__StreamDecoder *, FLAC__stream_decoder_new, (void), ())
LAZY(F, void, FLAC__stream_decoder_delete, (FLAC__StreamDecoder * d), (d))
LAZY(F, FLAC__bool, FLAC__stream_decoder_finish, (FLAC__StreamDecoder * d), (d))
LAZY(F, FLAC__bool, FLAC__stream_decoder_flush, (FLAC__StreamDecoder * d), (d))
LAZY(F, FLAC__StreamDecoderState, FLAC__stream_decoder_get_state, (const FLAC__StreamDecoder *d), (d))
LAZY(F, const char *, FLAC__stream_decoder_get_resolved_state_string, (const FLAC__StreamDecoder *d), (d))
LAZY(F, FLAC__bool, FLAC__stream_decoder_process_single, (FLAC__StreamDecoder * d), (d))
LAZY(F, FLAC__bool, FLAC__stream_decoder_seek_absolute, (FLAC__StreamDecoder * d, FLAC__uint64 s), (d, s))
LAZY(F, FLAC__StreamDecoderInitStatus, FLAC__stream_decoder_init_stream,
     (FLAC__StreamDecoder * d, FLAC__StreamDecoderReadCallback r, FLAC__StreamDecoderSeekCallback s,
      FLAC__StreamDecoderTellCallback t, FLAC__StreamDecoderLengthCallback l, FLAC__StreamDecoderEofCallback e,
      FLAC__StreamDecoderWriteCallback w, FLAC__StreamDecoderMetadataCallback m, FLAC__StreamDecoderErrorCallback x,
      void *c),
     (d, r, s, t, l, e, w, m, x, c))
LAZY(F, FLAC__Metadata_SimpleIterator *, FLAC__metadata_simple_iterator_new, (void), ())
LAZY(F, void, FLAC__metadata_simple_iterator_delete, (FLAC__Metadata_SimpleIterator * i), (i))
LAZY(F, FLAC__bool, FLAC__metadata_simple_iterator_init,
     (FLAC__Metadata_SimpleIterator * i, const char *f, FLAC__bool r, FLAC__bool p), (i, f, r, p))
LAZY(F, FLAC__Metadata_SimpleIteratorStatus, FLAC__metadata_simple_iterator_status,
     (FLAC__Metadata_SimpleIterator * i), (i))
LAZY(F, FLAC__bool, FLAC__metadata_simple_iterator_is_last, (const FLAC__Metadata_SimpleIterator *i), (i))
LAZY(F, FLAC__bool, FLAC__metadata_simple_iterator_next, (FLAC__Metadata_SimpleIterator * i), (i))
LAZY(F, off_t, FLAC__metadata_simple_iterator_get_block_offset, (const FLAC__Metadata_SimpleIterator *i), (i))
LAZY(F, FLAC__MetadataType, FLAC__metadata_simple_iterator_get_block_type,
     (const FLAC__Metadata_SimpleIterator *i), (i))
LAZY(F, unsigned, FLAC__metadata_simple_iterator_get_block_length, (const FLAC__Metadata_SimpleIterator *i), (i))
LAZY(F, FLAC__StreamMetadata *, FLAC__metadata_simple_iterator_get_block, (FLAC__Metadata_SimpleIterator * i), (i))
LAZY(F, void, FLAC__metadata_object_delete, (FLAC__StreamMetadata * o), (o))

const char *jb_flac_error_status_string(int status) {
    return ((const char *const *)symbol(F, "FLAC__StreamDecoderErrorStatusString"))[status];
}
const char *jb_flac_init_status_string(int status) {
    return ((const char *const *)symbol(F, "FLAC__StreamDecoderInitStatusString"))[status];
}
const char *jb_flac_iterator_status_string(int status) {
    return ((const char *const *)symbol(F, "FLAC__Metadata_SimpleIteratorStatusString"))[status];
}
#undef F

#define G JB_LIB_OGG
LAZY(G, int, ogg_stream_init, (ogg_stream_state * s, int serial), (s, serial))
LAZY(G, int, ogg_stream_clear, (ogg_stream_state * s), (s))
LAZY(G, int, ogg_stream_packetin, (ogg_stream_state * s, ogg_packet *p), (s, p))
LAZY(G, int, ogg_stream_flush, (ogg_stream_state * s, ogg_page *p), (s, p))
LAZY(G, void, ogg_page_checksum_set, (ogg_page * p), (p))
#undef G

#define V JB_LIB_VORBISFILE
LAZY(V, int, ov_open_callbacks,
     (void *s, OggVorbis_File *vf, const char *initial, long ibytes, ov_callbacks callbacks),
     (s, vf, initial, ibytes, callbacks))
LAZY(V, int, ov_clear, (OggVorbis_File * vf), (vf))
LAZY(V, long, ov_streams, (OggVorbis_File * vf), (vf))
LAZY(V, ogg_int64_t, ov_pcm_total, (OggVorbis_File * vf, int i), (vf, i))
LAZY(V, vorbis_info *, ov_info, (OggVorbis_File * vf, int link), (vf, link))
LAZY(V, vorbis_comment *, ov_comment, (OggVorbis_File * vf, int link), (vf, link))
LAZY(V, long, ov_read,
     (OggVorbis_File * vf, char *buffer, int length, int bigendianp, int word, int sgned, int *bitstream),
     (vf, buffer, length, bigendianp, word, sgned, bitstream))
LAZY(V, long, ov_read_float, (OggVorbis_File * vf, float ***pcm, int samples, int *bitstream),
     (vf, pcm, samples, bitstream))
LAZY(V, int, ov_pcm_seek, (OggVorbis_File * vf, ogg_int64_t pos), (vf, pos))
LAZY(V, ogg_int64_t, ov_pcm_tell, (OggVorbis_File * vf), (vf))
LAZY(V, long, ov_serialnumber, (OggVorbis_File * vf, int i), (vf, i))
#undef V

#define O JB_LIB_OPUSFILE
LAZY(O, OggOpusFile *, op_open_callbacks,
     (void *s, const OpusFileCallbacks *cb, const unsigned char *initial, size_t ibytes, int *error),
     (s, cb, initial, ibytes, error))
LAZY(O, void, op_free, (OggOpusFile * of), (of))
LAZY(O, ogg_int64_t, op_pcm_total, (const OggOpusFile *of, int li), (of, li))
LAZY(O, const OpusHead *, op_head, (const OggOpusFile *of, int li), (of, li))
LAZY(O, const OpusTags *, op_tags, (const OggOpusFile *of, int li), (of, li))
LAZY(O, int, op_channel_count, (const OggOpusFile *of, int li), (of, li))
LAZY(O, void, op_set_dither_enabled, (OggOpusFile * of, int enabled), (of, enabled))
LAZY(O, int, op_read, (OggOpusFile * of, opus_int16 *pcm, int size, int *li), (of, pcm, size, li))
LAZY(O, int, op_read_float, (OggOpusFile * of, float *pcm, int size, int *li), (of, pcm, size, li))
LAZY(O, int, op_pcm_seek, (OggOpusFile * of, ogg_int64_t offset), (of, offset))
LAZY(O, ogg_int64_t, op_pcm_tell, (const OggOpusFile *of), (of))
LAZY(O, opus_uint32, op_serialno, (const OggOpusFile *of, int li), (of, li))
LAZY(O, int, opus_tags_get_track_gain, (const OpusTags *tags, int *gain), (tags, gain))
LAZY(O, int, opus_tags_get_album_gain, (const OpusTags *tags, int *gain), (tags, gain))
#undef O

#define S JB_LIB_SOXR
LAZY(S, soxr_t, soxr_create,
     (double input_rate, double output_rate, unsigned num_channels, soxr_error_t *error,
      soxr_io_spec_t const *io, soxr_quality_spec_t const *quality, soxr_runtime_spec_t const *runtime),
     (input_rate, output_rate, num_channels, error, io, quality, runtime))
LAZY(S, soxr_error_t, soxr_process,
     (soxr_t resampler, soxr_in_t in, size_t ilen, size_t *idone, soxr_out_t out, size_t olen, size_t *odone),
     (resampler, in, ilen, idone, out, olen, odone))
LAZY(S, soxr_error_t, soxr_clear, (soxr_t resampler), (resampler))
LAZY(S, void, soxr_delete, (soxr_t resampler), (resampler))
LAZY(S, soxr_io_spec_t, soxr_io_spec, (soxr_datatype_t itype, soxr_datatype_t otype), (itype, otype))
LAZY(S, soxr_quality_spec_t, soxr_quality_spec, (unsigned long recipe, unsigned long flags), (recipe, flags))
#undef S

#define SN JB_LIB_SONIC
LAZY(SN, sonicStream, sonicCreateStream, (int sampleRate, int numChannels), (sampleRate, numChannels))
LAZY(SN, void, sonicDestroyStream, (sonicStream stream), (stream))
LAZY(SN, void, sonicSetSpeed, (sonicStream stream, float speed), (stream, speed))
LAZY(SN, int, sonicWriteShortToStream, (sonicStream stream, short *samples, int numSamples),
     (stream, samples, numSamples))
LAZY(SN, int, sonicReadShortFromStream, (sonicStream stream, short *samples, int maxSamples),
     (stream, samples, maxSamples))
LAZY(SN, int, sonicFlushStream, (sonicStream stream), (stream))
#undef SN
#define X JB_LIB_XML2
LAZY(X, xmlTextReaderPtr, xmlReaderForFile, (const char *filename, const char *encoding, int options),
     (filename, encoding, options))
LAZY(X, void, xmlFreeTextReader, (xmlTextReaderPtr reader), (reader))
LAZY(X, int, xmlTextReaderRead, (xmlTextReaderPtr reader), (reader))
LAZY(X, int, xmlTextReaderNodeType, (xmlTextReaderPtr reader), (reader))
LAZY(X, int, xmlTextReaderIsEmptyElement, (xmlTextReaderPtr reader), (reader))
LAZY(X, int, xmlTextReaderMoveToNextAttribute, (xmlTextReaderPtr reader), (reader))
LAZY(X, int, xmlTextReaderMoveToElement, (xmlTextReaderPtr reader), (reader))
LAZY(X, const xmlChar *, xmlTextReaderConstLocalName, (xmlTextReaderPtr reader), (reader))
LAZY(X, const xmlChar *, xmlTextReaderConstNamespaceUri, (xmlTextReaderPtr reader), (reader))
LAZY(X, const xmlChar *, xmlTextReaderConstValue, (xmlTextReaderPtr reader), (reader))
LAZY(X, void, xmlTextReaderSetStructuredErrorHandler, (xmlTextReaderPtr reader, xmlStructuredErrorFunc f, void *arg),
     (reader, f, arg))
#undef X

#define E JB_LIB_ESPEAK
LAZY(E, int, espeak_Initialize, (espeak_AUDIO_OUTPUT output, int buflength, const char *path, int options),
     (output, buflength, path, options))
LAZY(E, void, espeak_SetSynthCallback, (t_espeak_callback * callback), (callback))
LAZY(E, espeak_ERROR, espeak_SetVoiceByName, (const char *name), (name))
LAZY(E, espeak_ERROR, espeak_SetParameter, (espeak_PARAMETER parameter, int value, int relative),
     (parameter, value, relative))
LAZY(E, espeak_ERROR, espeak_Synth,
     (const void *text, size_t size, unsigned int position, espeak_POSITION_TYPE position_type,
      unsigned int end_position, unsigned int flags, unsigned int *unique_identifier, void *user_data),
     (text, size, position, position_type, end_position, flags, unique_identifier, user_data))
LAZY(E, espeak_ERROR, espeak_Synchronize, (void), ())
#undef E

#define C JB_LIB_CURL
#define CURL_FUNCTIONS(X) \
    X(C, CURL *, curl_easy_init, (void), ()) \
    X(C, void, curl_easy_cleanup, (CURL * curl), (curl)) \
    X(C, void, curl_easy_reset, (CURL * curl), (curl)) \
    X(C, CURLcode, curl_easy_perform, (CURL * curl), (curl)) \
    X(C, const char *, curl_easy_strerror, (CURLcode code), (code)) \
    X(C, struct curl_slist *, curl_slist_append, (struct curl_slist * list, const char *data), (list, data)) \
    X(C, void, curl_slist_free_all, (struct curl_slist * list), (list))
CURL_FUNCTIONS(LAZY)

/* The two variadic calls take one argument after the option, whose type the option's number
   says (as curl's own setopt reads it): passed on as that type. */
__attribute__((visibility("hidden"))) CURLcode(curl_easy_setopt)(CURL *curl, CURLoption option, ...) {
    static void *real;
    CURLcode (*setopt)(CURL *, CURLoption, ...) =
        (CURLcode(*)(CURL *, CURLoption, ...))real_function(&real, C, "curl_easy_setopt");
    va_list args;
    va_start(args, option);
    CURLcode code;
    if (option < CURLOPTTYPE_OBJECTPOINT) {
        code = setopt(curl, option, va_arg(args, long));
    } else if (option < CURLOPTTYPE_FUNCTIONPOINT) {
        code = setopt(curl, option, va_arg(args, void *));
    } else if (option < CURLOPTTYPE_OFF_T) {
        code = setopt(curl, option, va_arg(args, void (*)(void)));
    } else if (option < CURLOPTTYPE_BLOB) {
        code = setopt(curl, option, va_arg(args, curl_off_t));
    } else {
        code = setopt(curl, option, va_arg(args, void *));
    }
    va_end(args);
    return code;
}

/* Every CURLINFO takes a pointer to where its value goes. */
__attribute__((visibility("hidden"))) CURLcode(curl_easy_getinfo)(CURL *curl, CURLINFO info, ...) {
    static void *real;
    CURLcode (*getinfo)(CURL *, CURLINFO, ...) =
        (CURLcode(*)(CURL *, CURLINFO, ...))real_function(&real, C, "curl_easy_getinfo");
    va_list args;
    va_start(args, info);
    void *where = va_arg(args, void *);
    va_end(args);
    return getinfo(curl, info, where);
}
#undef C

#define AF JB_LIB_AVFORMAT
#define AVFORMAT_FUNCTIONS(X) \
    X(AF, AVFormatContext *, avformat_alloc_context, (void), ()) \
    X(AF, int, avformat_open_input, (AVFormatContext * *ps, const char *url, const AVInputFormat *fmt, AVDictionary **options), (ps, url, fmt, options)) \
    X(AF, void, avformat_close_input, (AVFormatContext * *s), (s)) \
    X(AF, const AVInputFormat *, av_find_input_format, (const char *short_name), (short_name)) \
    X(AF, int, av_read_frame, (AVFormatContext * s, AVPacket *pkt), (s, pkt)) \
    X(AF, int, avformat_seek_file, (AVFormatContext * s, int stream_index, int64_t min_ts, int64_t ts, int64_t max_ts, int flags), (s, stream_index, min_ts, ts, max_ts, flags)) \
    X(AF, int, avformat_index_get_entries_count, (const AVStream *st), (st)) \
    X(AF, const AVIndexEntry *, avformat_index_get_entry, (AVStream * st, int idx), (st, idx)) \
    X(AF, AVIOContext *, avio_alloc_context, (unsigned char *buffer, int buffer_size, int write_flag, void *opaque, int (*read_packet)(void *opaque, uint8_t *buf, int buf_size), int (*write_packet)(void *opaque, uint8_t *buf, int buf_size), int64_t (*seek)(void *opaque, int64_t offset, int whence)), (buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek)) \
    X(AF, void, avio_context_free, (AVIOContext * *s), (s))
AVFORMAT_FUNCTIONS(LAZY)
#undef AF

#define AC JB_LIB_AVCODEC
#define AVCODEC_FUNCTIONS(X) \
    X(AC, const AVCodec *, avcodec_find_decoder, (enum AVCodecID id), (id)) \
    X(AC, const char *, avcodec_get_name, (enum AVCodecID id), (id)) \
    X(AC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec)) \
    X(AC, void, avcodec_free_context, (AVCodecContext * *avctx), (avctx)) \
    X(AC, int, avcodec_parameters_to_context, (AVCodecContext * codec, const AVCodecParameters *par), (codec, par)) \
    X(AC, int, avcodec_open2, (AVCodecContext * avctx, const AVCodec *codec, AVDictionary **options), (avctx, codec, options)) \
    X(AC, int, avcodec_send_packet, (AVCodecContext * avctx, const AVPacket *avpkt), (avctx, avpkt)) \
    X(AC, int, avcodec_receive_frame, (AVCodecContext * avctx, AVFrame *frame), (avctx, frame)) \
    X(AC, void, avcodec_flush_buffers, (AVCodecContext * avctx), (avctx)) \
    X(AC, AVPacket *, av_packet_alloc, (void), ()) \
    X(AC, void, av_packet_free, (AVPacket * *pkt), (pkt)) \
    X(AC, void, av_packet_unref, (AVPacket * pkt), (pkt))
AVCODEC_FUNCTIONS(LAZY)
#undef AC

#define AU JB_LIB_AVUTIL
#define AVUTIL_FUNCTIONS(X) \
    X(AU, AVFrame *, av_frame_alloc, (void), ()) \
    X(AU, void, av_frame_free, (AVFrame * *frame), (frame)) \
    X(AU, void, av_frame_unref, (AVFrame * frame), (frame)) \
    X(AU, AVDictionaryEntry *, av_dict_get, (const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags), (m, key, prev, flags)) \
    X(AU, int, av_dict_count, (const AVDictionary *m), (m)) \
    X(AU, int, av_dict_set, (AVDictionary * *pm, const char *key, const char *value, int flags), (pm, key, value, flags)) \
    X(AU, void, av_dict_free, (AVDictionary * *m), (m)) \
    X(AU, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size)) \
    X(AU, void, av_log_set_callback, (void (*callback)(void *, int, const char *, va_list)), (callback)) \
    X(AU, void *, av_malloc, (size_t size), (size)) \
    X(AU, void, av_free, (void *ptr), (ptr)) \
    X(AU, int64_t, av_rescale_q, (int64_t a, AVRational bq, AVRational cq), (a, bq, cq))
AVUTIL_FUNCTIONS(LAZY)
#undef AU

/* The functions of each library whose previous loader checked them all when it loaded (curl
   and FFmpeg: a minimal FFmpeg build from another version is an error on each MP4 file, not an
   abort in the middle of one), NULL-terminated. */
#define NAME(library, ret, name, params, args) #name,
static const char *const curl_names[] = {CURL_FUNCTIONS(NAME) "curl_easy_setopt", "curl_easy_getinfo", NULL};
static const char *const avformat_names[] = {AVFORMAT_FUNCTIONS(NAME) NULL};
static const char *const avcodec_names[] = {AVCODEC_FUNCTIONS(NAME) NULL};
static const char *const avutil_names[] = {AVUTIL_FUNCTIONS(NAME) NULL};
#undef NAME

static const char *missing_function(int library, void *handle) {
    const char *const *names = library == JB_LIB_CURL       ? curl_names
                               : library == JB_LIB_AVFORMAT ? avformat_names
                               : library == JB_LIB_AVCODEC  ? avcodec_names
                               : library == JB_LIB_AVUTIL   ? avutil_names
                                                            : NULL;
    for (; names != NULL && *names != NULL; names++)
        if (dlsym(handle, *names) == NULL) return *names;
    return NULL;
}
