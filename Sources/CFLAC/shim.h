#ifndef JUKEBOX_CFLAC_SHIM_H
#define JUKEBOX_CFLAC_SHIM_H
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <FLAC/metadata.h>
#include <FLAC/stream_decoder.h>

/* libFLAC's stream decoder reads every metadata block it is not asked for through its bit
   reader: a 5 MB cover is 5 MB of read(2) before the first sample. So the decoder is fed a
   stream made of "fLaC", the STREAMINFO and SEEKTABLE blocks copied from the file (found with
   libFLAC's metadata iterator, which seeks past blocks), then the file from its first audio
   frame on. Offsets the decoder sees are offsets in that stream; SEEKTABLE offsets count from
   the first frame, so they stay right.
   Decoded frames are interleaved into `out` (Int32, the source's bit depth right-justified),
   from which Swift copies; libFLAC's own buffers are valid only inside the write callback. */
/* libFLAC's status texts (arrays of unknown size, which Swift cannot import, and data, which
   the lazy loader looks up) are jb_flac_*_status_string in CLazyLibraries. */

typedef struct {
    FLAC__StreamDecoder *decoder;
    int fd;
    unsigned char *prefix;  /* "fLaC" + the kept metadata blocks */
    uint64_t prefix_len;
    uint64_t audio_offset;  /* file offset of the first audio frame */
    uint64_t file_size;
    uint64_t pos;           /* position in the fed stream */
    int32_t *out;           /* interleaved samples of the last frame written */
    uint32_t out_capacity;  /* frames */
    uint32_t out_frames, out_next, channels;
    int error;              /* last FLAC__StreamDecoderErrorStatus, or -1 */
    uint64_t errors;        /* how many the error callback reported */
    /* The file read ahead: libFLAC asks for at most its bit reader's 8 KiB at a time, and
       each pread is a system call (a round trip on a network or 9p file system). */
    unsigned char *ahead;   /* JB_FLAC_AHEAD bytes */
    uint64_t ahead_at;      /* file offset of ahead[0] */
    size_t ahead_len;       /* valid bytes in ahead */
} jb_flac;

enum { JB_FLAC_AHEAD = 65536 };

static inline FLAC__StreamDecoderReadStatus jb_flac_read(const FLAC__StreamDecoder *d, FLAC__byte buffer[], size_t *bytes, void *data) {
    jb_flac *f = (jb_flac *)data;
    (void)d;
    size_t want = *bytes, done = 0;
    while (done < want && f->pos < f->prefix_len) {
        buffer[done++] = f->prefix[f->pos++];
    }
    while (done < want) {
        uint64_t at = f->audio_offset + f->pos - f->prefix_len;
        if (at >= f->ahead_at && at < f->ahead_at + f->ahead_len) {
            size_t n = (size_t)(f->ahead_at + f->ahead_len - at);
            if (n > want - done) n = want - done;
            memcpy(buffer + done, f->ahead + (at - f->ahead_at), n);
            done += n;
            f->pos += n;
            continue;
        }
        /* A request as large as the read-ahead goes straight into libFLAC's buffer. */
        int direct = want - done >= JB_FLAC_AHEAD;
        ssize_t got = direct ? pread(f->fd, buffer + done, want - done, (off_t)at)
                             : pread(f->fd, f->ahead, JB_FLAC_AHEAD, (off_t)at);
        if (got < 0) {
            if (errno == EINTR) continue;
            return FLAC__STREAM_DECODER_READ_STATUS_ABORT;
        }
        if (got == 0) break;
        if (direct) {
            done += (size_t)got;
            f->pos += (uint64_t)got;
        } else {
            f->ahead_at = at;
            f->ahead_len = (size_t)got;
        }
    }
    *bytes = done;
    return done == 0 ? FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM : FLAC__STREAM_DECODER_READ_STATUS_CONTINUE;
}

static inline uint64_t jb_flac_stream_length(const jb_flac *f) { return f->prefix_len + f->file_size - f->audio_offset; }

static inline FLAC__StreamDecoderSeekStatus jb_flac_seek(const FLAC__StreamDecoder *d, FLAC__uint64 offset, void *data) {
    jb_flac *f = (jb_flac *)data;
    (void)d;
    if (offset > jb_flac_stream_length(f)) return FLAC__STREAM_DECODER_SEEK_STATUS_ERROR;
    f->pos = offset;
    return FLAC__STREAM_DECODER_SEEK_STATUS_OK;
}

static inline FLAC__StreamDecoderTellStatus jb_flac_tell(const FLAC__StreamDecoder *d, FLAC__uint64 *offset, void *data) {
    (void)d;
    *offset = ((jb_flac *)data)->pos;
    return FLAC__STREAM_DECODER_TELL_STATUS_OK;
}

static inline FLAC__StreamDecoderLengthStatus jb_flac_length(const FLAC__StreamDecoder *d, FLAC__uint64 *length, void *data) {
    (void)d;
    *length = jb_flac_stream_length((jb_flac *)data);
    return FLAC__STREAM_DECODER_LENGTH_STATUS_OK;
}

static inline FLAC__bool jb_flac_eof(const FLAC__StreamDecoder *d, void *data) {
    jb_flac *f = (jb_flac *)data;
    (void)d;
    return f->pos >= jb_flac_stream_length(f);
}

static inline FLAC__StreamDecoderWriteStatus jb_flac_write(const FLAC__StreamDecoder *d, const FLAC__Frame *frame, const FLAC__int32 *const buffer[], void *data) {
    jb_flac *f = (jb_flac *)data;
    (void)d;
    uint32_t n = frame->header.blocksize, ch = frame->header.channels;
    /* A frame larger than STREAMINFO's maximum block size, or with another channel count,
       contradicts the header: stop rather than write past `out`. */
    if (n > f->out_capacity || ch != f->channels) return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT;
    for (uint32_t c = 0; c < ch; c++) {
        const FLAC__int32 *src = buffer[c];
        int32_t *dst = f->out + c;
        for (uint32_t i = 0; i < n; i++, dst += ch) *dst = src[i];
    }
    f->out_frames = n;
    f->out_next = 0;
    return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE;
}

static inline void jb_flac_error(const FLAC__StreamDecoder *d, FLAC__StreamDecoderErrorStatus status, void *data) {
    jb_flac *f = (jb_flac *)data;
    (void)d;
    f->error = (int)status;
    f->errors++;
}

static inline void jb_flac_free(jb_flac *f) {
    if (f == NULL) return;
    if (f->decoder != NULL) {
        FLAC__stream_decoder_finish(f->decoder);
        FLAC__stream_decoder_delete(f->decoder);
    }
    if (f->fd >= 0) close(f->fd);
    free(f->prefix);
    free(f->out);
    free(f->ahead);
    free(f);
}

/* The prefix the decoder is fed: "fLaC" and the blocks at `offsets` (header included,
   `lengths` bytes each), read from the file, each marked not-last but the final one. */
static inline int jb_flac_build_prefix(jb_flac *f, const int64_t *offsets, const uint32_t *lengths, int count) {
    uint64_t total = 4;
    for (int i = 0; i < count; i++) total += lengths[i];
    f->prefix = (unsigned char *)malloc(total);
    if (f->prefix == NULL) return -1;
    memcpy(f->prefix, "fLaC", 4);
    uint64_t at = 4;
    for (int i = 0; i < count; i++) {
        size_t done = 0;
        while (done < lengths[i]) {
            ssize_t got = pread(f->fd, f->prefix + at + done, lengths[i] - done, (off_t)(offsets[i] + (int64_t)done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                if (got == 0) errno = EIO;
                return -1;
            }
            done += (size_t)got;
        }
        if (i == count - 1) f->prefix[at] |= 0x80; else f->prefix[at] &= 0x7f;
        at += lengths[i];
    }
    f->prefix_len = total;
    return 0;
}

/* Opens `path` for decoding from `audio_offset`, with the metadata blocks at `offsets`
   (STREAMINFO first). NULL with *init_status >= 0 when libFLAC refused to initialise, or
   -1 and errno for a system error. */
static inline jb_flac *jb_flac_open(const char *path, const int64_t *offsets, const uint32_t *lengths, int count,
                                    int64_t audio_offset, uint32_t max_blocksize, uint32_t channels, int *init_status) {
    *init_status = -1;
    jb_flac *f = (jb_flac *)calloc(1, sizeof *f);
    if (f == NULL) return NULL;
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    f->error = -1;
    f->channels = channels;
    f->out_capacity = max_blocksize;
    f->audio_offset = (uint64_t)audio_offset;
    struct stat st;
    if (f->fd < 0 || fstat(f->fd, &st) != 0 || jb_flac_build_prefix(f, offsets, lengths, count) != 0) goto fail;
    f->file_size = (uint64_t)st.st_size;
    if (f->file_size < f->audio_offset) { errno = EINVAL; goto fail; }
    f->out = (int32_t *)malloc((size_t)max_blocksize * channels * sizeof(int32_t));
    f->ahead = (unsigned char *)malloc(JB_FLAC_AHEAD);
    f->decoder = FLAC__stream_decoder_new();
    if (f->out == NULL || f->ahead == NULL || f->decoder == NULL) { errno = ENOMEM; goto fail; }
    int rc = FLAC__stream_decoder_init_stream(f->decoder, jb_flac_read, jb_flac_seek, jb_flac_tell, jb_flac_length,
                                              jb_flac_eof, jb_flac_write, NULL, jb_flac_error, f);
    if (rc != FLAC__STREAM_DECODER_INIT_STATUS_OK) { *init_status = rc; goto fail; }
    return f;
fail:;
    int saved = errno;
    jb_flac_free(f);
    errno = saved;
    return NULL;
}
#endif
