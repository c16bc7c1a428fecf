#include "mp4_audio.h"

#include "lazy_libraries.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>

/* MARK: loading FFmpeg */

/* The last error FFmpeg logged on this thread, added to the error's text (av_strerror alone
   says "Invalid data found when processing input"; the log says "moov atom not found"). */
static __thread char last_log[256];

static void log_callback(void *avcl, int level, const char *format, va_list args) {
    (void)avcl;
    if (level > AV_LOG_ERROR) return;
    vsnprintf(last_log, sizeof last_log, format, args);
    size_t n = strlen(last_log);
    while (n > 0 && (last_log[n - 1] == '\n' || last_log[n - 1] == ' ')) last_log[--n] = 0;
}

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static void set_log_callback(void) { av_log_set_callback(log_callback); }

/* CLazyLibraries opens FFmpeg (the minimal build, else Debian's three) and defines the av*
   functions called here; each library in the order they link. */
const char *jb_mp4_load(void) {
    static const int libraries[] = {JB_LIB_AVUTIL, JB_LIB_AVCODEC, JB_LIB_AVFORMAT};
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++) {
        const char *failure = jb_lazy_load(libraries[i]);
        if (failure) return failure;
    }
    pthread_once(&log_once, set_log_callback);
    return NULL;
}

/* MARK: the file, with the covers hidden */

enum { MAX_COVERS = 8, MAX_PATCHES = MAX_COVERS + 4, MAX_TRACKS = 8 };

/* Where one of a trak's sample tables (stts, stsc, stsz/stz2, stco/co64) has its entries. */
struct table_place {
    int64_t type_at; /* the offset of the atom's type field: 0 when the trak has none */
    int64_t at;      /* the first entry's offset */
    int64_t count;
    int width;       /* bytes per entry */
};

/* What the shim reads of a trak: whether the demuxer may skip its edit-list pass, and where
   its sample tables are, for the shim's own packet reader. */
struct track {
    int64_t id;            /* tkhd's track ID, which the demuxer gives the stream as its id */
    uint32_t sample_entry; /* stsd's first entry: 'mp4a', 'alac', ... */
    int64_t edits;         /* elst's entry count */
    int64_t duration;      /* the first edit's segment duration, in the movie's timescale */
    int64_t media_time;    /* and where it starts in the media, in the track's timescale */
    int64_t rate;          /* and its rate, 16.16 */
    int64_t timescale, media_duration; /* mdhd */
    int64_t descriptions;  /* stsd's entry count */
    int64_t sample_size;   /* stsz's size of every sample; 0 when each is in the table */
    struct table_place stts, stsc, stsz, stco;
    int odd_tables;        /* a table twice, too short, or stz2 with 4-bit sizes */
};

struct jb_mp4 {
    int fd;
    /* A pipe (a web radio station's ADTS AAC): read as it comes, never seeked. */
    int sequential;
    int64_t size;
    int64_t pos;
    /* File offsets of the type field of 'covr' atoms: reads see another type there, so the
       demuxer skips the atom by offset instead of reading the picture into memory (it keeps
       it as an attached picture for as long as the file is open). */
    int64_t patches[MAX_PATCHES];
    int patch_count, covers;
    /* The trak (index in `tracks`) the iTunSMPB atom follows: the demuxer gives that trak's
       stream its delay as the priming. -1 before any trak. */
    int smpb_track;
    int64_t smpb_delay, smpb_padding, smpb_frames;
    int64_t movie_timescale;
    int fragmented; /* moov/mvex: the index grows fragment by fragment, with no edit-list pass */
    struct track tracks[MAX_TRACKS];
    int track_count; /* may exceed MAX_TRACKS: then the edit lists are left to the demuxer */
    const struct track *edit; /* the audio track's single edit, trimmed by the shim */
    struct reader *reader;    /* the shim's own packet reader, when it reads the packets */

    AVIOContext *io;
    AVFormatContext *format;
    AVStream *stream;
    AVCodecContext *codec;
    AVPacket *packet;
    AVFrame *frame;
    int codec_kind;
    int rate, channels, bits;
    int64_t frames;      /* the exact length */
    int64_t first_pts;   /* pts of the first output sample, in samples */
    int64_t position;    /* output frame the next read returns */
    int64_t frame_start; /* output frame of `frame`'s first sample */
    int frame_offset;    /* samples of `frame` already used */
    int have_frame;
    int seeking;         /* after a seek: drop samples before `position` by their pts */
    int draining;        /* the demuxer is at its end; the decoder is being drained */
};

/* Big-endian, summed unsigned (a shift into the sign bit is undefined): 8 bytes of 2^63 or
   more come out negative, which every caller refuses as a size or an offset. */
static int64_t be(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = (v << 8) | p[i];
    return (int64_t)v;
}

/* a - b, held within +-2^62 so that frame counts added to it later cannot overflow either
   (timestamps come from the file; none that plays is near). */
static int64_t difference(int64_t a, int64_t b) {
    const int64_t limit = INT64_MAX / 2;
    int64_t d;
    if (__builtin_sub_overflow(a, b, &d)) return a < 0 ? -limit : limit;
    return d > limit ? limit : d < -limit ? -limit : d;
}

/* An atom's header at `at` within [at, end) (0 <= at, end <= the file's size): its type,
   payload start and end. Size 0 runs to `end`; a 64-bit size (1) is compared with the room
   left, never added to `at` before it is known to fit. */
static int atom_at(jb_mp4 *m, int64_t at, int64_t end, uint32_t *type, int64_t *body, int64_t *next) {
    unsigned char h[16];
    ssize_t got;
    if (end - at < 8 || (got = pread(m->fd, h, 16, at)) < 8) return 0;
    int64_t size = be(h, 4), room = end - at;
    *type = (uint32_t)be(h + 4, 4);
    *body = at + 8;
    if (size == 1) {
        if (got < 16) return 0;
        size = be(h + 8, 8);
        *body = at + 16;
    } else if (size == 0) {
        size = room;
    }
    if (size < *body - at || size > room) return 0;
    *next = at + size;
    return 1;
}

#define FOURCC(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

/* iTunSMPB: " 00000000 00000840 000001CA 00000000003F31F6": delay, padding, length. */
static void read_smpb(jb_mp4 *m, int64_t at, int64_t end) {
    uint32_t type;
    int64_t body, next;
    char name[16] = {0};
    for (; atom_at(m, at, end, &type, &body, &next); at = next) {
        /* Both full atoms: version and flags (and the data's type), then the text. A body shorter
           than that is none (its length would come out negative, then huge as a size_t). */
        if (type == FOURCC('n', 'a', 'm', 'e') && next - body >= 4 && next - body - 4 < (int64_t)sizeof name)
            (void)!pread(m->fd, name, (size_t)(next - body - 4), body + 4);
        if (type == FOURCC('d', 'a', 't', 'a') && !strcmp(name, "iTunSMPB") && next - body >= 8 && next - body - 8 < 256) {
            char text[256] = {0};
            if (pread(m->fd, text, (size_t)(next - body - 8), body + 8) < 0) return;
            unsigned long long delay, padding, frames;
            if (sscanf(text, "%*x %llx %llx %llx", &delay, &padding, &frames) == 3 && delay < 1 << 20) {
                m->smpb_delay = (int64_t)delay;
                m->smpb_padding = (int64_t)padding;
                m->smpb_frames = (int64_t)frames;
                m->smpb_track = m->track_count - 1;
            }
        }
    }
}

/* A sample table atom at `at`: its count at `count_at` in the payload `b` (`n` bytes read), its
   entries of `width` bytes from `entries` (width 0: a table without entries, stsz's constant
   size), which must end within the atom. */
static void place_table(struct track *t, struct table_place *p, int64_t at, const unsigned char *b, int64_t n,
                        int64_t entries, int64_t end, int count_at, int width) {
    if (p->type_at || n < count_at + 4) {
        t->odd_tables = 1;
        return;
    }
    p->type_at = at + 4;
    p->at = entries;
    p->count = be(b + count_at, 4);
    p->width = width;
    if (width && (end - entries) / width < p->count) t->odd_tables = 1;
}

/* A trak's track ID, first sample entry, edit list, timescale and sample tables
   (moov/trak/{tkhd, edts/elst, mdia/{mdhd, minf/stbl/{stsd, stts, stsc, stsz, stco}}}). */
static void walk_track(jb_mp4 *m, struct track *t, int64_t at, int64_t end, int depth) {
    uint32_t type;
    int64_t body, next;
    unsigned char b[32];
    for (int count = 0; count < 256 && atom_at(m, at, end, &type, &body, &next); count++, at = next) {
        int64_t n = next - body < (int64_t)sizeof b ? next - body : (int64_t)sizeof b;
        if (type == FOURCC('e', 'd', 't', 's') || type == FOURCC('m', 'd', 'i', 'a') ||
            type == FOURCC('m', 'i', 'n', 'f') || type == FOURCC('s', 't', 'b', 'l')) {
            if (depth < 4) walk_track(m, t, body, next, depth + 1);
            continue;
        }
        if (pread(m->fd, b, (size_t)n, body) != n) continue;
        int v1 = n > 0 && b[0] == 1;
        switch (type) {
        case FOURCC('t', 'k', 'h', 'd'):
            if (n >= (v1 ? 24 : 16)) t->id = be(b + (v1 ? 20 : 12), 4);
            break;
        case FOURCC('m', 'd', 'h', 'd'):
            if (n >= (v1 ? 32 : 20)) {
                t->timescale = be(b + (v1 ? 20 : 12), 4);
                t->media_duration = be(b + (v1 ? 24 : 16), v1 ? 8 : 4);
            }
            break;
        case FOURCC('s', 't', 's', 'd'):
            if (n >= 8) t->descriptions = be(b + 4, 4);
            if (n >= 16) t->sample_entry = (uint32_t)be(b + 12, 4);
            break;
        case FOURCC('s', 't', 't', 's'):
            place_table(t, &t->stts, at, b, n, body + 8, next, 4, 8);
            break;
        case FOURCC('s', 't', 's', 'c'):
            place_table(t, &t->stsc, at, b, n, body + 8, next, 4, 12);
            break;
        case FOURCC('s', 't', 's', 'z'):
            if (n >= 12) t->sample_size = be(b + 4, 4);
            place_table(t, &t->stsz, at, b, n, body + 12, next, 8, t->sample_size ? 0 : 4);
            break;
        case FOURCC('s', 't', 'z', '2'):
            if (n >= 12 && b[7] != 8 && b[7] != 16) t->odd_tables = 1;
            place_table(t, &t->stsz, at, b, n, body + 12, next, 8, n >= 12 ? b[7] / 8 : 0);
            break;
        case FOURCC('s', 't', 'c', 'o'):
            place_table(t, &t->stco, at, b, n, body + 8, next, 4, 4);
            break;
        case FOURCC('c', 'o', '6', '4'):
            place_table(t, &t->stco, at, b, n, body + 8, next, 4, 8);
            break;
        case FOURCC('e', 'l', 's', 't'):
            if (n < 8) break;
            t->edits = be(b + 4, 4);
            if (t->edits > 0 && n >= (v1 ? 28 : 20)) {
                t->duration = be(b + 8, v1 ? 8 : 4);
                t->media_time = v1 ? be(b + 16, 8) : (int32_t)(uint32_t)be(b + 12, 4);
                t->rate = be(b + (v1 ? 24 : 16), 4);
            } else if (t->edits > 0) {
                t->edits = -1; /* unreadable: left to the demuxer */
            }
            break;
        }
    }
}

/* Walks moov/udta/meta/ilst (and moov/meta/ilst), reading atom headers only, and each
   moov/trak's edit list. */
static void walk(jb_mp4 *m, int64_t at, int64_t end, int depth) {
    uint32_t type;
    int64_t body, next;
    for (int count = 0; count < 4096 && atom_at(m, at, end, &type, &body, &next); count++, at = next) {
        switch (type) {
        case FOURCC('m', 'o', 'o', 'v'):
        case FOURCC('u', 'd', 't', 'a'):
        case FOURCC('i', 'l', 's', 't'):
            if (depth < 4) walk(m, body, next, depth + 1);
            break;
        case FOURCC('m', 'e', 't', 'a'): {
            /* ISO's meta is a full box (4 bytes of version and flags); QuickTime's is not. */
            unsigned char v[4];
            int full = pread(m->fd, v, 4, body) == 4 && be(v, 4) == 0;
            if (depth < 4) walk(m, body + (full ? 4 : 0), next, depth + 1);
            break;
        }
        case FOURCC('c', 'o', 'v', 'r'):
            if (m->covers < MAX_COVERS) m->patches[m->covers++] = at + 4;
            break;
        case FOURCC('-', '-', '-', '-'):
            read_smpb(m, body, next);
            break;
        case FOURCC('m', 'v', 'h', 'd'): {
            unsigned char v[24];
            if (depth == 1 && pread(m->fd, v, sizeof v, body) == (ssize_t)sizeof v)
                m->movie_timescale = be(v + (v[0] == 1 ? 20 : 12), 4);
            break;
        }
        case FOURCC('m', 'v', 'e', 'x'):
            if (depth == 1) m->fragmented = 1;
            break;
        case FOURCC('t', 'r', 'a', 'k'):
            if (depth == 1 && m->track_count++ < MAX_TRACKS)
                walk_track(m, &m->tracks[m->track_count - 1], body, next, 0);
            break;
        }
        if (depth == 0 && type == FOURCC('m', 'o', 'o', 'v')) return;
    }
}

static int io_read(void *opaque, uint8_t *buffer, int size) {
    jb_mp4 *m = opaque;
    ssize_t n;
    do n = m->sequential ? read(m->fd, buffer, (size_t)size) : pread(m->fd, buffer, (size_t)size, m->pos);
    while (n < 0 && errno == EINTR);
    if (n < 0) return AVERROR(errno);
    if (n == 0) return AVERROR_EOF;
    static const char hidden[4] = {'j', 'b', 'c', 'v'};
    for (int i = 0; i < m->patch_count; i++) {
        for (int k = 0; k < 4; k++) {
            int64_t at = m->patches[i] + k - m->pos;
            if (at >= 0 && at < n) buffer[at] = (uint8_t)hidden[k];
        }
    }
    m->pos += n;
    return (int)n;
}

static int64_t io_seek(void *opaque, int64_t offset, int whence) {
    jb_mp4 *m = opaque;
    if (m->sequential) return AVERROR(ESPIPE);
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return m->size;
    case SEEK_SET: break;
    case SEEK_CUR: if (__builtin_add_overflow(offset, m->pos, &offset)) return AVERROR(EINVAL); break;
    case SEEK_END: if (__builtin_add_overflow(offset, m->size, &offset)) return AVERROR(EINVAL); break;
    default: return AVERROR(EINVAL);
    }
    if (offset < 0) return AVERROR(EINVAL);
    m->pos = offset;
    return offset;
}

/* MARK: the shim's own packet reader */

/* FFmpeg's demuxer keeps a 24-byte index entry per packet for as long as a file is open, beside
   its copies of the sample tables: 37 MB for a 10-hour audiobook (1.55 million packets), 50 MB
   at the peak of opening it. For the usual layout (an AAC or ALAC trak with one sample
   description, its tables where they should be, at most one plain edit, no fragments) the shim
   hides that trak's sample tables from the demuxer, which still gives the codec's parameters,
   the tags and the chapters, and reads the packets itself: the tables stay in the file and are
   read one window of each at a time (4 kB each, whatever the length). Everything else is left
   to the demuxer, as before. */

/* AHEAD: the packets' bytes are read this much at a time (a chunk's packets lie one after
   another): a read call per AAC packet cost more CPU than FFmpeg's demuxer with its 32 KiB
   buffer. */
enum { WINDOW = 4096, MAX_PACKET = 1 << 20, AHEAD = 64 * 1024 };

/* One sample table, read a window at a time. */
struct table {
    struct table_place place;
    int64_t first;  /* the window's first entry */
    int64_t loaded; /* entries in the window */
    unsigned char window[WINDOW];
};

struct reader {
    struct table stts, stsc, stsz, stco;
    int64_t samples;       /* packets in the trak */
    int64_t sample_size;   /* every packet's size, or 0: stsz has each */
    int64_t stts_duration; /* the packets' durations summed, in the trak's timescale */
    /* Output samples before the track's start (AAC's priming): the edit's media time, or
       iTunSMPB's delay, as the demuxer gives them to the decoder to skip. */
    int64_t priming;
    /* The next packet: its index, dts, offset, chunk (0-based), the packets left in that chunk,
       its stsc entry, its stts entry and the packets left in that entry. */
    int64_t sample, dts, offset, chunk, chunk_left, stsc_entry, stts_entry, stts_left;
    unsigned char *data; /* the packet's bytes and FFmpeg's zeroed padding */
    size_t data_capacity;
    unsigned char ahead[AHEAD]; /* the file's bytes from ahead_at, ahead_len of them */
    int64_t ahead_at;
    size_t ahead_len;
    /* A broken table met: every read fails with it until a seek (the packet is not skipped). */
    int error;
    char error_text[64];
};

/* The `width`-byte big-endian field at `at` of entry `i` of `t`: 1, or 0 when the entry is past
   the table or cannot be read. */
static int table_field(int fd, struct table *t, int64_t i, int at, int width, int64_t *value) {
    if (i < 0 || i >= t->place.count) return 0;
    if (i < t->first || i >= t->first + t->loaded) {
        int64_t per = WINDOW / t->place.width;
        int64_t first = i / per * per;
        int64_t n = t->place.count - first < per ? t->place.count - first : per;
        size_t bytes = (size_t)(n * t->place.width);
        ssize_t got;
        t->loaded = 0;
        do got = pread(fd, t->window, bytes, t->place.at + first * t->place.width);
        while (got < 0 && errno == EINTR);
        if (got != (ssize_t)bytes) return 0;
        t->first = first;
        t->loaded = n;
    }
    *value = be(t->window + (i - t->first) * t->place.width + at, width);
    return 1;
}

static int packet_size(jb_mp4 *m, int64_t sample, int64_t *size) {
    struct reader *r = m->reader;
    if (r->sample_size) {
        *size = r->sample_size;
        return 1;
    }
    return table_field(m->fd, &r->stsz, sample, 0, r->stsz.place.width, size);
}

/* The reader's next packet becomes `sample` (the end when it is the count): 1, or 0 when the
   tables cannot be read. */
static int place_packet(jb_mp4 *m, int64_t sample) {
    struct reader *r = m->reader;
    int fd = m->fd;
    r->sample = sample;
    if (sample >= r->samples) return 1;
    int64_t first = 0, dts = 0, count = 0, delta = 0, e;
    for (e = 0;; e++) {
        if (!table_field(fd, &r->stts, e, 0, 4, &count) || !table_field(fd, &r->stts, e, 4, 4, &delta)) return 0;
        if (sample < first + count) break;
        first += count;
        dts += count * delta;
    }
    r->stts_entry = e;
    r->stts_left = first + count - sample;
    r->dts = dts + (sample - first) * delta;
    int64_t chunks = r->stco.place.count;
    first = 0;
    for (e = 0;; e++) {
        int64_t first_chunk, per, next_chunk = chunks + 1;
        if (!table_field(fd, &r->stsc, e, 0, 4, &first_chunk) || !table_field(fd, &r->stsc, e, 4, 4, &per)) return 0;
        if (e + 1 < r->stsc.place.count && !table_field(fd, &r->stsc, e + 1, 0, 4, &next_chunk)) return 0;
        int64_t in_entry = (next_chunk - first_chunk) * per;
        if (sample < first + in_entry) {
            int64_t within = (sample - first) % per;
            r->stsc_entry = e;
            r->chunk = first_chunk - 1 + (sample - first) / per;
            r->chunk_left = per - within;
            if (!table_field(fd, &r->stco, r->chunk, 0, r->stco.place.width, &r->offset)) return 0;
            /* The packets before it in its chunk: each of stsz's entries (in the file, 4 bytes
               each), or `within` times the one size, which a loop would count out one by one. */
            int64_t before = 0;
            if (r->sample_size) {
                if (__builtin_mul_overflow(within, r->sample_size, &before)) return 0;
            } else {
                for (int64_t s = sample - within; s < sample; s++) {
                    int64_t size;
                    if (!packet_size(m, s, &size) || __builtin_add_overflow(before, size, &before)) return 0;
                }
            }
            return !__builtin_add_overflow(r->offset, before, &r->offset);
        }
        first += in_entry;
    }
}

/* The next packet's offset, size, dts and duration: 1, 0 after the last, -1 when the tables
   cannot be read. Moves on by one packet. */
static int next_packet(jb_mp4 *m, int64_t *offset, int64_t *size, int64_t *dts, int64_t *duration) {
    struct reader *r = m->reader;
    int fd = m->fd;
    if (r->sample >= r->samples) return 0;
    if (!packet_size(m, r->sample, size) || !table_field(fd, &r->stts, r->stts_entry, 4, 4, duration)) return -1;
    *offset = r->offset;
    *dts = r->dts;
    if (__builtin_add_overflow(r->offset, *size, &r->offset)) return -1;
    r->dts += *duration; /* within the sum tables_agree bounded */
    if (++r->sample == r->samples) return 1;
    while (--r->stts_left <= 0) {
        if (!table_field(fd, &r->stts, ++r->stts_entry, 0, 4, &r->stts_left)) return -1;
        r->stts_left++; /* counted down at the loop's test */
    }
    if (--r->chunk_left > 0) return 1;
    while (r->chunk_left <= 0) {
        int64_t next_chunk, per;
        /* Runs of empty chunks end at stco's end (tables_agree saw packets after them). */
        if (++r->chunk >= r->stco.place.count) return -1;
        if (r->stsc_entry + 1 < r->stsc.place.count) {
            if (!table_field(fd, &r->stsc, r->stsc_entry + 1, 0, 4, &next_chunk)) return -1;
            if (next_chunk - 1 == r->chunk) r->stsc_entry++;
        }
        if (!table_field(fd, &r->stsc, r->stsc_entry, 4, 4, &per)) return -1;
        r->chunk_left = per;
    }
    return table_field(fd, &r->stco, r->chunk, 0, r->stco.place.width, &r->offset) ? 1 : -1;
}

/* The last packet whose dts is at most `dts` (the first when none is). */
static int64_t packet_at(jb_mp4 *m, int64_t dts) {
    struct reader *r = m->reader;
    int64_t first = 0, at = 0, count, delta;
    for (int64_t e = 0; table_field(m->fd, &r->stts, e, 0, 4, &count) && table_field(m->fd, &r->stts, e, 4, 4, &delta); e++) {
        if (delta > 0 && dts < at + count * delta) return dts < at ? first : first + (dts - at) / delta;
        first += count;
        at += count * delta;
    }
    return first > 0 ? first - 1 : 0;
}

/* Whether the tables agree (stts and stsc cover every packet of stsz, chunks in order within
   stco, sums that do not overflow), summing the durations on the way: a table that does not is
   left to the demuxer, so that a broken file fails or plays as before. */
static int tables_agree(jb_mp4 *m) {
    struct reader *r = m->reader;
    int64_t count, delta, product, samples = 0, chunks = r->stco.place.count;
    for (int64_t e = 0; e < r->stts.place.count; e++) {
        if (!table_field(m->fd, &r->stts, e, 0, 4, &count) || !table_field(m->fd, &r->stts, e, 4, 4, &delta)) return 0;
        if (delta > INT_MAX || __builtin_mul_overflow(count, delta, &product) ||
            __builtin_add_overflow(r->stts_duration, product, &r->stts_duration) ||
            __builtin_add_overflow(samples, count, &samples))
            return 0;
    }
    if (samples != r->samples || samples == 0 || r->stts_duration > INT64_MAX / 4) return 0;
    int64_t previous = 0, per = 0;
    samples = 0;
    for (int64_t e = 0; e <= r->stsc.place.count; e++) {
        int64_t first_chunk = chunks + 1; /* after the last entry: the end of its run */
        if (e < r->stsc.place.count) {
            if (!table_field(m->fd, &r->stsc, e, 0, 4, &first_chunk)) return 0;
            if ((e == 0 && first_chunk != 1) || first_chunk <= previous || first_chunk > chunks) return 0;
        }
        if (e > 0 && (__builtin_mul_overflow(first_chunk - previous, per, &product) ||
                      __builtin_add_overflow(samples, product, &samples)))
            return 0;
        if (e < r->stsc.place.count && !table_field(m->fd, &r->stsc, e, 4, 4, &per)) return 0;
        previous = first_chunk;
    }
    return r->stsc.place.count > 0 && samples == r->samples;
}

/* The reader for trak `t`, or NULL (then the demuxer reads the packets). */
static struct reader *make_reader(jb_mp4 *m, const struct track *t) {
    if (t->descriptions != 1 || t->odd_tables || !t->stts.type_at || !t->stsc.type_at || !t->stsz.type_at ||
        !t->stco.type_at || t->timescale <= 0 || t->timescale > INT_MAX || t->stsz.count <= 0)
        return NULL;
    struct reader *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->stts.place = t->stts;
    r->stsc.place = t->stsc;
    r->stsz.place = t->stsz;
    r->stco.place = t->stco;
    r->samples = t->stsz.count;
    r->sample_size = t->sample_size;
    m->reader = r;
    if (!tables_agree(m) || !place_packet(m, 0)) {
        m->reader = NULL;
        free(r);
        return NULL;
    }
    int aac = t->sample_entry == FOURCC('m', 'p', '4', 'a');
    if (aac && t->edits == 1 && t->media_time > 0)
        r->priming = t->media_time;
    else if (aac && m->smpb_track == t - m->tracks && m->smpb_delay > 0 && m->smpb_delay < 16384)
        r->priming = m->smpb_delay;
    return r;
}

static void free_reader(jb_mp4 *m) {
    if (!m->reader) return;
    free(m->reader->data);
    free(m->reader);
    m->reader = NULL;
}

/* The next packet from the reader into m->packet, as av_read_frame gives it. A packet past the
   end of the file (a cut download) ends the stream. */
static int read_packet(jb_mp4 *m) {
    struct reader *r = m->reader;
    int64_t offset, size = 0, dts, duration;
    int got;
    if (r->error) {
        snprintf(last_log, sizeof last_log, "%s", r->error_text);
        return r->error;
    }
    do got = next_packet(m, &offset, &size, &dts, &duration);
    while (got > 0 && size == 0);
    if (got == 0 || (got > 0 && (offset < 0 || size > m->size || offset > m->size - size))) return AVERROR_EOF;
    /* An AAC packet is at most 768 bytes a channel, an ALAC one a frame's samples uncompressed
       (128 kB at 8 channels of 32 bits): more is a broken table, not a packet to allocate. */
    if (got < 0 || size > MAX_PACKET) {
        if (got < 0) snprintf(r->error_text, sizeof r->error_text, "unreadable sample tables");
        else snprintf(r->error_text, sizeof r->error_text, "a packet of %" PRId64 " bytes", size);
        snprintf(last_log, sizeof last_log, "%s", r->error_text);
        return r->error = AVERROR_INVALIDDATA;
    }
    size_t need = (size_t)size + AV_INPUT_BUFFER_PADDING_SIZE;
    if (need > r->data_capacity) {
        unsigned char *data = realloc(r->data, need);
        if (!data) return AVERROR(ENOMEM);
        r->data = data;
        r->data_capacity = need;
    }
    if (offset < r->ahead_at || offset + size > r->ahead_at + (int64_t)r->ahead_len) {
        /* A packet larger than the window (ALAC) is read alone. */
        int alone = size > AHEAD;
        ssize_t n;
        do n = alone ? pread(m->fd, r->data, (size_t)size, offset) : pread(m->fd, r->ahead, AHEAD, offset);
        while (n < 0 && errno == EINTR);
        r->ahead_len = 0;
        if (n < 0) return AVERROR(errno);
        if (n < size) return AVERROR_EOF;
        if (!alone) {
            r->ahead_at = offset;
            r->ahead_len = (size_t)n;
        }
    }
    if (size <= AHEAD) memcpy(r->data, r->ahead + (offset - r->ahead_at), (size_t)size);
    memset(r->data + size, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    /* Not reference-counted: avcodec_send_packet copies it. */
    m->packet->data = r->data;
    m->packet->size = (int)size;
    m->packet->pts = m->packet->dts = dts;
    m->packet->duration = duration;
    m->packet->stream_index = m->stream->index;
    return 0;
}

/* Hides the reader's trak's tables from the demuxer (reads see another type there). */
static void hide_tables(jb_mp4 *m, const struct track *t) {
    m->patch_count = m->covers;
    const struct table_place *tables[] = {&t->stts, &t->stsc, &t->stsz, &t->stco};
    for (int i = 0; i < 4; i++) m->patches[m->patch_count++] = tables[i]->type_at;
}

/* The index of the last packet wholly in the file, -1 when none is. Packets lie in the file in
   their order (chunks follow each other), so a cut file's are a prefix: a binary search. */
static int64_t last_whole_packet(jb_mp4 *m) {
    struct reader *r = m->reader;
    int64_t low = 0, high = r->samples - 1, found = -1;
    while (low <= high) {
        int64_t mid = low + (high - low) / 2, size;
        if (!place_packet(m, mid) || !packet_size(m, mid, &size)) break;
        if (r->offset >= 0 && r->offset <= m->size && size <= m->size - r->offset) {
            found = mid;
            low = mid + 1;
        } else {
            high = mid - 1;
        }
    }
    return found;
}

/* MARK: errors */

static int fail(int code, const char *what, const char **call, char *message, size_t message_len) {
    *call = what;
    char text[AV_ERROR_MAX_STRING_SIZE] = {0};
    if (av_strerror(code, text, sizeof text) < 0) /* called once FFmpeg is loaded only */
        snprintf(text, sizeof text, "error %d", code);
    if (last_log[0])
        snprintf(message, message_len, "%s (%s)", last_log, text);
    else
        snprintf(message, message_len, "%s", text);
    return code;
}

/* MARK: decoding */

/* The next decoded frame into m->frame: 1, 0 at the end, or an AVERROR code. A packet the
   decoder rejects is skipped (as ffmpeg does), up to a run of 64. */
static int next_frame(jb_mp4 *m, const char **call) {
    int rejected = 0;
    for (;;) {
        int r = avcodec_receive_frame(m->codec, m->frame);
        if (r == 0) return 1;
        if (r == AVERROR_EOF) return 0;
        if (r != AVERROR(EAGAIN)) {
            *call = "avcodec_receive_frame";
            return r;
        }
        if (m->draining) return 0;
        r = m->reader ? read_packet(m) : av_read_frame(m->format, m->packet);
        if (r == AVERROR_EOF) {
            m->draining = 1;
            r = avcodec_send_packet(m->codec, NULL);
            if (r < 0) {
                *call = "avcodec_send_packet";
                return r;
            }
            continue;
        }
        if (r < 0) {
            *call = m->reader ? "reading a packet" : "av_read_frame";
            return r;
        }
        if (m->packet->stream_index != m->stream->index) {
            av_packet_unref(m->packet);
            continue;
        }
        r = avcodec_send_packet(m->codec, m->packet);
        av_packet_unref(m->packet);
        if (r < 0 && r != AVERROR(EAGAIN)) {
            if (++rejected < 64) continue;
            *call = "avcodec_send_packet";
            return r;
        }
    }
}

static int64_t pts_samples(jb_mp4 *m, int64_t pts) {
    return av_rescale_q(pts, m->stream->time_base, (AVRational){1, m->rate});
}

/* Where the frame just decoded starts, in output frames. */
static void place_frame(jb_mp4 *m) {
    int64_t pts = m->frame->pts != AV_NOPTS_VALUE ? m->frame->pts : m->frame->best_effort_timestamp;
    if (m->seeking && pts != AV_NOPTS_VALUE)
        m->frame_start = difference(pts_samples(m, pts), m->first_pts);
    else
        m->frame_start = m->position;
    m->frame_offset = 0;
    m->have_frame = 1;
}

/* Whether the demuxer may skip its edit-list pass (advanced_editlist=0). That pass
   (mov_fix_index) builds a second packet index while the first is still allocated, 24 bytes a
   packet: 37 MB more at the peak of opening a 10-hour audiobook. Without it the demuxer still
   applies a single edit's start (AAC's priming, as skip samples, as it does iTunSMPB's delay)
   and the shim ends at the edit's end. Several edits, an empty one, another rate, a start in
   a track that is not AAC, or an iTunSMPB delay that disagrees keep the pass. */
static int simple_edits(const jb_mp4 *m) {
    if (m->fragmented || m->track_count > MAX_TRACKS || m->movie_timescale <= 0 || m->movie_timescale > INT_MAX)
        return 0;
    for (int i = 0; i < m->track_count; i++) {
        const struct track *t = &m->tracks[i];
        if (t->edits == 0) continue;
        if (t->edits != 1 || t->media_time < 0 || t->rate != 0x10000) return 0;
        if (t->media_time > 0 && (t->sample_entry != FOURCC('m', 'p', '4', 'a') ||
                                  (m->smpb_delay >= 0 && m->smpb_delay != t->media_time)))
            return 0;
    }
    return 1;
}

static int codec_kind(enum AVCodecID id) {
    return id == AV_CODEC_ID_AAC ? JB_MP4_AAC : id == AV_CODEC_ID_ALAC ? JB_MP4_ALAC : 0;
}

/* Opens the demuxer on m's file and chooses the first AAC or ALAC stream: 0, or an AVERROR code
   with `step` named and the reason in last_log. */
static int open_demuxer(jb_mp4 *m, const char *path, int simple, const char **step) {
    *step = "avformat_open_input";
    unsigned char *buffer = av_malloc(32768);
    m->io = buffer ? avio_alloc_context(buffer, 32768, 0, m, io_read, NULL, io_seek) : NULL;
    m->format = m->io ? avformat_alloc_context() : NULL;
    if (!m->io) av_free(buffer);
    if (!m->format) return AVERROR(ENOMEM);
    if (m->sequential) m->io->seekable = 0;
    m->format->pb = m->io;
    m->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    AVDictionary *options = NULL;
    if (simple && av_dict_set(&options, "advanced_editlist", "0", 0) < 0) return AVERROR(ENOMEM);
    /* "On failure, ... a user-supplied AVFormatContext will be freed" (avformat.h). */
    int r = avformat_open_input(&m->format, path, av_find_input_format(m->sequential ? "aac" : "mp4"), &options);
    av_dict_free(&options);
    if (r < 0) return r;

    /* The first AAC or ALAC stream; the others (video, chapter text) are never read. */
    const char *other = NULL;
    for (unsigned i = 0; i < m->format->nb_streams; i++) {
        AVStream *s = m->format->streams[i];
        s->discard = AVDISCARD_ALL;
        if (s->codecpar->codec_type != AVMEDIA_TYPE_AUDIO) continue;
        if (!m->stream && codec_kind(s->codecpar->codec_id)) {
            m->stream = s;
            s->discard = AVDISCARD_DEFAULT;
        } else if (!other) {
            other = avcodec_get_name(s->codecpar->codec_id);
        }
    }
    if (m->stream) return 0;
    *step = "choosing the audio stream";
    if (other) snprintf(last_log, sizeof last_log, "the audio is %s, not AAC or ALAC", other);
    else snprintf(last_log, sizeof last_log, "no audio stream");
    return other ? AVERROR_DECODER_NOT_FOUND : AVERROR_STREAM_NOT_FOUND;
}

static void close_demuxer(jb_mp4 *m) {
    m->stream = NULL;
    if (m->format) avformat_close_input(&m->format);
    if (m->io) {
        /* The buffer may have been replaced by libavformat; free the current one. */
        av_free(m->io->buffer);
        avio_context_free(&m->io);
    }
}

/* The trak whose packets the shim's reader reads, or NULL: the first AAC or ALAC one, in a
   file whose edit lists the shim handles. */
static const struct track *own_track(const jb_mp4 *m) {
    if (m->sequential || !simple_edits(m)) return NULL;
    for (int i = 0; i < m->track_count; i++) {
        uint32_t entry = m->tracks[i].sample_entry;
        if (entry == FOURCC('m', 'p', '4', 'a') || entry == FOURCC('a', 'l', 'a', 'c')) return &m->tracks[i];
    }
    return NULL;
}

int jb_mp4_open(const char *path, int flags, jb_mp4 **out, const char **call, char *message, size_t message_len) {
    *out = NULL;
    last_log[0] = 0;
    const char *load_failure = jb_mp4_load();
    if (load_failure) {
        *call = "dlopen";
        snprintf(message, message_len, "%s", load_failure);
        return AVERROR(ENOSYS);
    }
    jb_mp4 *m = calloc(1, sizeof *m);
    if (!m) return fail(AVERROR(ENOMEM), "calloc", call, message, message_len);
    m->smpb_delay = m->smpb_padding = m->smpb_frames = -1;
    m->smpb_track = -1;
    m->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (m->fd < 0 || fstat(m->fd, &st) < 0) {
        int code = AVERROR(errno);
        jb_mp4_close(m);
        return fail(code, "open", call, message, message_len);
    }
    m->size = st.st_size;
    m->sequential = S_ISFIFO(st.st_mode);
    if (!m->sequential) walk(m, 0, m->size, 0);
    m->patch_count = m->covers;

    int r;
    const char *step;
    int simple = !m->sequential && simple_edits(m);
    const struct track *own = flags & JB_MP4_DEMUXER_PACKETS ? NULL : own_track(m);
    if (own && make_reader(m, own)) hide_tables(m, own);
    r = open_demuxer(m, path, simple, &step);
    if (m->reader && (r < 0 || m->stream->id != own->id)) {
        /* Not the trak the reader read (an MP3 in 'mp4a', a failure): as before, without it. */
        close_demuxer(m);
        free_reader(m);
        m->patch_count = m->covers;
        last_log[0] = 0;
        r = open_demuxer(m, path, simple, &step);
    }
    if (r < 0) goto failed;
    m->codec_kind = codec_kind(m->stream->codecpar->codec_id);
    for (int i = 0; simple && i < m->track_count; i++)
        if (m->tracks[i].id == m->stream->id && m->tracks[i].edits == 1) m->edit = &m->tracks[i];
    const AVCodec *decoder = avcodec_find_decoder(m->stream->codecpar->codec_id);
    m->codec = decoder ? avcodec_alloc_context3(decoder) : NULL;
    m->packet = av_packet_alloc();
    m->frame = av_frame_alloc();
    step = "avcodec_open2";
    if (!m->codec || !m->packet || !m->frame) {
        r = decoder ? AVERROR(ENOMEM) : AVERROR_DECODER_NOT_FOUND;
        goto failed;
    }
    if ((r = avcodec_parameters_to_context(m->codec, m->stream->codecpar)) < 0) goto failed;
    /* pkt_timebase lets the decoder move a frame's pts past the samples it skips (priming). */
    m->codec->pkt_timebase = m->stream->time_base;
    m->codec->thread_count = 1;
    if ((r = avcodec_open2(m->codec, decoder, NULL)) < 0) goto failed;

    /* The first frame: the real rate and channels (HE-AAC doubles the rate), and a file
       with no decodable audio fails here rather than in the middle of a queue. */
    r = next_frame(m, &step);
    /* The reader's priming is dropped by the shim, as the decoder drops it when the demuxer
       has it skip that many samples: whole frames first (so that AAC's noise generator is where
       the demuxer's path leaves it), the rest of it below. */
    int64_t skip = m->reader ? m->reader->priming : 0;
    while (r > 0 && skip >= m->frame->nb_samples) {
        skip -= m->frame->nb_samples;
        av_frame_unref(m->frame);
        r = next_frame(m, &step);
    }
    if (r <= 0) {
        if (r == 0) {
            r = AVERROR_INVALIDDATA;
            snprintf(last_log, sizeof last_log, "no audio frame decodes");
        }
        goto failed;
    }
    m->rate = m->frame->sample_rate;
    m->channels = m->frame->ch_layout.nb_channels;
    if (m->rate <= 0 || m->channels <= 0) {
        r = AVERROR_INVALIDDATA;
        goto failed;
    }
    m->bits = m->codec_kind == JB_MP4_ALAC ? m->codec->bits_per_raw_sample : 0;
    if (m->bits == 0 && m->codec_kind == JB_MP4_ALAC)
        m->bits = m->frame->format == AV_SAMPLE_FMT_S16P || m->frame->format == AV_SAMPLE_FMT_S16 ? 16 : 32;
    int64_t pts = m->frame->pts != AV_NOPTS_VALUE ? m->frame->pts : m->frame->best_effort_timestamp;
    if (m->reader)
        m->first_pts = m->reader->priming;
    else
        m->first_pts = pts != AV_NOPTS_VALUE ? pts_samples(m, pts) : 0;

    /* The length: iTunSMPB's when the file has one (FFmpeg takes its delay as the start
       padding, but not its length); else the stream's duration, cut to the edit's end as the
       demuxer's edit-list pass cuts it (when the shim skipped that pass). */
    int64_t duration = m->stream->duration;
    /* The demuxer, which did not see the reader's stts, cuts mdhd's duration to the packets'. */
    if (m->reader && m->reader->stts_duration > 0 && m->reader->stts_duration < duration)
        duration = m->reader->stts_duration;
    if (m->edit) {
        int64_t edit_end = av_rescale_q(m->edit->duration, (AVRational){1, (int)m->movie_timescale}, m->stream->time_base);
        if (edit_end < duration) duration = edit_end;
    }
    if (m->smpb_frames > 0)
        m->frames = m->smpb_frames;
    else if (duration > 0)
        m->frames = pts_samples(m, duration);
    else
        m->frames = INT64_MAX;
    /* A truncated file: only the samples wholly in the file are there. */
    if (m->reader) {
        int64_t next = m->reader->sample;
        int64_t last = last_whole_packet(m);
        if (last >= 0 && last + 1 < m->reader->samples) {
            int64_t end = place_packet(m, last + 1) ? difference(pts_samples(m, m->reader->dts), m->first_pts) : m->frames;
            if (end < m->frames) m->frames = end > 0 ? end : 0;
        }
        /* Back where the first frame left it. */
        if (!place_packet(m, next)) {
            r = AVERROR_INVALIDDATA;
            goto failed;
        }
    } else {
        int entries = avformat_index_get_entries_count(m->stream);
        for (int i = entries - 1; i >= 0; i--) {
            const AVIndexEntry *e = avformat_index_get_entry(m->stream, i);
            if (e && e->pos <= m->size - e->size) {
                if (i + 1 < entries) {
                    const AVIndexEntry *cut = avformat_index_get_entry(m->stream, i + 1);
                    int64_t end = difference(pts_samples(m, cut->timestamp), m->first_pts);
                    if (end < m->frames) m->frames = end > 0 ? end : 0;
                }
                break;
            }
        }
    }
    place_frame(m);
    m->frame_offset = (int)skip;
    *out = m;
    return 0;

failed:
    jb_mp4_close(m);
    return fail(r, step, call, message, message_len);
}

void jb_mp4_close(jb_mp4 *m) {
    if (!m) return;
    if (m->frame) av_frame_free(&m->frame);
    if (m->packet) av_packet_free(&m->packet);
    if (m->codec) avcodec_free_context(&m->codec);
    close_demuxer(m);
    free_reader(m);
    if (m->fd >= 0) close(m->fd);
    free(m);
}

void jb_mp4_get_info(const jb_mp4 *m, jb_mp4_info *info) {
    info->codec = m->codec_kind;
    info->rate = m->rate;
    info->channels = m->channels;
    info->bits = m->bits;
    info->frames = m->frames;
    info->delay = m->smpb_delay;
    info->padding = m->smpb_padding;
    info->covers_skipped = m->covers;
    info->own_packets = m->reader != NULL;
    const AVChannelLayout *layout = &m->codec->ch_layout;
    info->channel_mask = layout->order == AV_CHANNEL_ORDER_NATIVE ? layout->u.mask : 0;
}

int64_t jb_mp4_position(const jb_mp4 *m) { return m->position; }

/* Rounds to the nearest integer, ties to even, as lrintf and llrintf do in the default rounding
   mode, without a call into libm per sample: adding 1.5 * 2^52 leaves no fraction bits in a
   double, so the addition itself rounds (exact for |x| < 2^51). */
static inline int64_t round_even(double x) { return (int64_t)((x + 6755399441055744.0) - 6755399441055744.0); }

static inline int16_t float_to_s16(float x) {
    int64_t v = round_even((double)(x * 32768.0f));
    return v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : (int16_t)v;
}

static inline int32_t float_to_s32(float x) {
    int64_t v = round_even((double)x * 2147483648.0);
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* Converts `n` samples per channel from `m->frame` at `from` into `out` (interleaved), as
   libswresample converts (so the output equals `ffmpeg -f s16le` / `s32le`): float is
   scaled by 2^15 or 2^31, rounded and clipped; wider integers keep their top bits. */
static void convert(jb_mp4 *m, int from, int n, void *out, int s32) {
    const AVFrame *f = m->frame;
    int ch = m->channels;
    int planar = f->format == AV_SAMPLE_FMT_FLTP || f->format == AV_SAMPLE_FMT_S16P || f->format == AV_SAMPLE_FMT_S32P;
    int stride = planar ? 1 : ch;
    int16_t *o16 = out;
    int32_t *o32 = out;
    for (int c = 0; c < ch; c++) {
        const uint8_t *plane = planar ? f->extended_data[c] : f->extended_data[0];
        int first = planar ? from : from * ch + c;
        switch (f->format) {
        case AV_SAMPLE_FMT_FLTP:
        case AV_SAMPLE_FMT_FLT: {
            const float *in = (const float *)plane + first;
            if (s32) for (int i = 0; i < n; i++) o32[i * ch + c] = float_to_s32(in[i * stride]);
            else for (int i = 0; i < n; i++) o16[i * ch + c] = float_to_s16(in[i * stride]);
            break;
        }
        case AV_SAMPLE_FMT_S16P:
        case AV_SAMPLE_FMT_S16: {
            const int16_t *in = (const int16_t *)plane + first;
            if (s32) for (int i = 0; i < n; i++) o32[i * ch + c] = (int32_t)((uint32_t)(uint16_t)in[i * stride] << 16);
            else for (int i = 0; i < n; i++) o16[i * ch + c] = in[i * stride];
            break;
        }
        default: {
            const int32_t *in = (const int32_t *)plane + first;
            if (s32) for (int i = 0; i < n; i++) o32[i * ch + c] = in[i * stride];
            else for (int i = 0; i < n; i++) o16[i * ch + c] = (int16_t)(in[i * stride] >> 16);
            break;
        }
        }
    }
}

static int supported_format(int format) {
    switch (format) {
    case AV_SAMPLE_FMT_FLTP: case AV_SAMPLE_FMT_FLT: case AV_SAMPLE_FMT_S16P:
    case AV_SAMPLE_FMT_S16: case AV_SAMPLE_FMT_S32P: case AV_SAMPLE_FMT_S32: return 1;
    default: return 0;
    }
}

int jb_mp4_read(jb_mp4 *m, void *out, int capacity, int s32, const char **call, char *message, size_t message_len) {
    last_log[0] = 0;
    int done = 0;
    size_t width = s32 ? 4 : 2;
    while (done < capacity && m->position < m->frames) {
        if (!m->have_frame) {
            const char *step = "avcodec_receive_frame";
            int r = next_frame(m, &step);
            if (r < 0) {
                if (done > 0) return done; /* this much first; the error comes again next time */
                return fail(r, step, call, message, message_len);
            }
            if (r == 0) {
                m->frames = m->position; /* shorter than the container said */
                break;
            }
            if (m->frame->ch_layout.nb_channels != m->channels || m->frame->sample_rate != m->rate ||
                !supported_format(m->frame->format)) {
                av_frame_unref(m->frame);
                snprintf(last_log, sizeof last_log, "the stream changes format midway");
                return fail(AVERROR_PATCHWELCOME, "avcodec_receive_frame", call, message, message_len);
            }
            place_frame(m);
        }
        int left = m->frame->nb_samples - m->frame_offset;
        int64_t at = m->frame_start + m->frame_offset;
        if (m->seeking && at < m->position) {
            int64_t drop = m->position - at;
            m->frame_offset += drop < left ? (int)drop : left;
        } else {
            m->seeking = 0;
            int64_t n = left;
            if (n > capacity - done) n = capacity - done;
            if (n > m->frames - m->position) n = m->frames - m->position;
            convert(m, m->frame_offset, (int)n, (char *)out + (size_t)done * m->channels * width, s32);
            m->frame_offset += (int)n;
            m->position += n;
            done += (int)n;
        }
        if (m->frame_offset >= m->frame->nb_samples) {
            av_frame_unref(m->frame);
            m->have_frame = 0;
        }
    }
    return done;
}

int jb_mp4_seek(jb_mp4 *m, int64_t frame, const char **call, char *message, size_t message_len) {
    last_log[0] = 0;
    if (frame < 0) frame = 0;
    if (frame > m->frames) frame = m->frames;
    /* AAC overlaps each frame with the one before (MDCT): start two frames early. */
    int64_t preroll = m->codec_kind == JB_MP4_AAC ? 2048 : 0;
    int64_t start = difference(frame, difference(preroll, m->first_pts));
    int64_t ts = av_rescale_q(start, (AVRational){1, m->rate}, m->stream->time_base);
    if (m->reader) {
        m->reader->error = 0;
        /* As the demuxer seeks (it takes the edit's start off the target, once more than it
           shifted the timestamps): the same packets decode, and AAC's noise is the same. */
        if (!place_packet(m, packet_at(m, difference(ts, m->edit ? m->edit->media_time : 0)))) {
            snprintf(last_log, sizeof last_log, "unreadable sample tables");
            return fail(AVERROR_INVALIDDATA, "seeking", call, message, message_len);
        }
    } else {
        int r = avformat_seek_file(m->format, m->stream->index, INT64_MIN, ts, ts, 0);
        if (r < 0) return fail(r, "avformat_seek_file", call, message, message_len);
    }
    avcodec_flush_buffers(m->codec);
    av_frame_unref(m->frame);
    m->have_frame = 0;
    m->draining = 0;
    m->seeking = 1;
    m->position = frame;
    return 0;
}

static void dict_entry(const AVDictionary *d, int index, const char **key, const char **value) {
    const AVDictionaryEntry *e = NULL;
    for (int i = 0; i <= index; i++) e = av_dict_get(d, "", e, AV_DICT_IGNORE_SUFFIX);
    *key = e ? e->key : "";
    *value = e ? e->value : "";
}

int jb_mp4_tag_count(const jb_mp4 *m) { return av_dict_count(m->format->metadata); }

void jb_mp4_tag(const jb_mp4 *m, int index, const char **key, const char **value) {
    dict_entry(m->format->metadata, index, key, value);
}

int jb_mp4_stream_tag_count(const jb_mp4 *m) { return av_dict_count(m->stream->metadata); }

void jb_mp4_stream_tag(const jb_mp4 *m, int index, const char **key, const char **value) {
    dict_entry(m->stream->metadata, index, key, value);
}

int jb_mp4_chapter_count(const jb_mp4 *m) { return (int)m->format->nb_chapters; }

void jb_mp4_chapter(const jb_mp4 *m, int index, const char **title, int64_t *start) {
    const AVChapter *c = m->format->chapters[index];
    const AVDictionaryEntry *e = av_dict_get(c->metadata, "title", NULL, 0);
    *title = e ? e->value : "";
    *start = av_rescale_q(c->start, c->time_base, (AVRational){1, m->rate});
}
