#include "ogg_headers.h"

#include <errno.h>
#include <fcntl.h>
#include <ogg/ogg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_at(int fd, uint64_t offset, void *dst, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(fd, (unsigned char *)dst + done, n - done, (off_t)(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        done += (size_t)got;
    }
    return 0;
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* A header packet as the byte ranges of the pages it lies in. */
typedef struct {
    uint64_t *offsets;
    uint32_t *lengths;
    size_t count, capacity;
    uint64_t bytes;
} packet_ranges;

static int ranges_add(packet_ranges *r, uint64_t offset, uint32_t length) {
    if (length == 0) return 0;
    /* A range grows while it stays under 4 GiB (its length is 32 bits); then another starts. */
    if (r->count > 0 && r->offsets[r->count - 1] + r->lengths[r->count - 1] == offset &&
        r->lengths[r->count - 1] <= UINT32_MAX - length) {
        r->lengths[r->count - 1] += length;
    } else {
        if (r->count == r->capacity) {
            size_t capacity = r->capacity ? r->capacity * 2 : 16;
            uint64_t *o = realloc(r->offsets, capacity * sizeof *o);
            if (o == NULL) return -1;
            r->offsets = o;
            uint32_t *l = realloc(r->lengths, capacity * sizeof *l);
            if (l == NULL) return -1;
            r->lengths = l;
            r->capacity = capacity;
        }
        r->offsets[r->count] = offset;
        r->lengths[r->count] = length;
        r->count++;
    }
    r->bytes += length;
    return 0;
}

/* Reads `n` bytes at packet offset `at` (across pages). */
static int ranges_read(int fd, const packet_ranges *r, uint64_t at, void *dst, size_t n) {
    unsigned char *out = dst;
    for (size_t i = 0; i < r->count && n > 0; i++) {
        if (at >= r->lengths[i]) {
            at -= r->lengths[i];
            continue;
        }
        size_t take = r->lengths[i] - at < n ? (size_t)(r->lengths[i] - at) : n;
        if (read_at(fd, r->offsets[i] + at, out, take) != 0) return -1;
        out += take;
        n -= take;
        at = 0;
    }
    return n == 0 ? 0 : -1;
}

static unsigned char *ranges_copy(int fd, const packet_ranges *r) {
    unsigned char *bytes = malloc(r->bytes ? r->bytes : 1);
    if (bytes != NULL && ranges_read(fd, r, 0, bytes, r->bytes) != 0) {
        free(bytes);
        return NULL;
    }
    return bytes;
}

typedef struct {
    unsigned char *bytes;
    size_t len, capacity;
} buffer;

static int buffer_add(buffer *b, const void *data, size_t n) {
    if (b->len + n > b->capacity) {
        size_t capacity = (b->len + n) * 2;
        unsigned char *p = realloc(b->bytes, capacity);
        if (p == NULL) return -1;
        b->bytes = p;
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->len, data, n);
    b->len += n;
    return 0;
}

/* The comment packet without the entries longer than `max_entry`; *skipped counts them. */
static int rebuild_comments(int fd, const packet_ranges *r, size_t magic, int framing, uint32_t max_entry,
                            buffer *out, uint32_t *skipped) {
    unsigned char head[8], len[4];
    if (r->bytes < magic + 8 || ranges_read(fd, r, 0, head, magic) != 0) return -1;
    if (buffer_add(out, head, magic) != 0) return -1;
    uint64_t at = magic;
    if (ranges_read(fd, r, at, len, 4) != 0) return -1;
    uint32_t vendor = le32(len);
    if (vendor > max_entry || at + 4 + vendor + 4 > r->bytes) return -1;
    /* In size_t: a 32-bit vendor + 4 could wrap. */
    size_t vendor_bytes = (size_t)vendor + 4;
    unsigned char *text = malloc(vendor_bytes);
    if (text == NULL || ranges_read(fd, r, at, text, vendor_bytes) != 0 || buffer_add(out, text, vendor_bytes) != 0) {
        free(text);
        return -1;
    }
    free(text);
    at += 4 + vendor;
    if (ranges_read(fd, r, at, len, 4) != 0) return -1;
    uint32_t count = le32(len), kept = 0;
    at += 4;
    size_t count_at = out->len;
    if (buffer_add(out, len, 4) != 0) return -1;
    for (uint32_t i = 0; i < count; i++) {
        if (at + 4 > r->bytes || ranges_read(fd, r, at, len, 4) != 0) return -1;
        uint32_t n = le32(len);
        if (at + 4 + n > r->bytes) return -1;
        if (n <= max_entry) {
            size_t entry_bytes = (size_t)n + 4;
            unsigned char *entry = malloc(entry_bytes);
            if (entry == NULL || ranges_read(fd, r, at, entry, entry_bytes) != 0 || buffer_add(out, entry, entry_bytes) != 0) {
                free(entry);
                return -1;
            }
            free(entry);
            kept++;
        } else {
            (*skipped)++;
        }
        at += 4 + n;
    }
    put_le32(out->bytes + count_at, kept);
    if (framing) {
        unsigned char bit = 1;
        if (buffer_add(out, &bit, 1) != 0) return -1;
    }
    return 0;
}

static int add_pages(buffer *out, ogg_stream_state *os, long *pages) {
    ogg_page page;
    while (ogg_stream_flush(os, &page) != 0) {
        if (buffer_add(out, page.header, (size_t)page.header_len) != 0) return -1;
        if (buffer_add(out, page.body, (size_t)page.body_len) != 0) return -1;
        (*pages)++;
    }
    return 0;
}

/* Walks the first link's header pages; on success sets s->prefix and s->data_offset when a
   comment entry was left out. Any surprise (not Ogg, another codec, multiplexed streams, a
   header packet not ending its page) leaves the file to be read as it is. */
static void walk_headers(jb_ogg_stream *s, int codec, uint32_t max_entry) {
    const int packets = codec == JB_OGG_VORBIS ? 3 : 2;
    packet_ranges header[3];
    memset(header, 0, sizeof header);
    uint64_t at = 0;
    uint32_t serial = 0;
    long pages = 0;
    int packet = 0;
    unsigned char *id = NULL, *setup = NULL;
    buffer comments = {0}, prefix = {0};
    ogg_stream_state os;
    int os_ready = 0;
    while (packet < packets) {
        unsigned char h[27 + 255];
        if (at + 27 > s->file_size || read_at(s->fd, at, h, 27) != 0 || memcmp(h, "OggS", 4) != 0 || h[4] != 0) goto done;
        int segments = h[26];
        if (read_at(s->fd, at + 27, h + 27, (size_t)segments) != 0) goto done;
        if (pages == 0) {
            if (!(h[5] & 2)) goto done;
            serial = le32(h + 14);
        } else if (le32(h + 14) != serial || le32(h + 18) != (uint32_t)pages) {
            goto done;
        }
        uint64_t body = at + 27 + (uint64_t)segments;
        for (int i = 0; i < segments; i++) {
            if (packet >= packets) goto done; /* audio shares the last header page */
            if (ranges_add(&header[packet], body, h[27 + i]) != 0) goto done;
            body += h[27 + i];
            if (h[27 + i] < 255) packet++;
        }
        pages++;
        at = body;
        if (at > s->file_size) goto done;
    }
    static const char *const magic[] = {"", "\003vorbis", "OpusTags"};
    static const char *const id_magic[] = {"", "\001vorbis", "OpusHead"};
    unsigned char first[8];
    uint32_t skipped = 0;
    if (ranges_read(s->fd, &header[0], 0, first, strlen(id_magic[codec])) != 0 ||
        memcmp(first, id_magic[codec], strlen(id_magic[codec])) != 0)
        goto done;
    if (header[0].bytes > 4096 || header[packets == 3 ? 2 : 0].bytes > (1u << 20)) goto done;
    if (rebuild_comments(s->fd, &header[1], strlen(magic[codec]), codec == JB_OGG_VORBIS, max_entry, &comments,
                         &skipped) != 0 || skipped == 0)
        goto done;
    id = ranges_copy(s->fd, &header[0]);
    if (id == NULL) goto done;
    if (packets == 3 && (setup = ranges_copy(s->fd, &header[2])) == NULL) goto done;

    if (ogg_stream_init(&os, (int)serial) != 0) goto done;
    os_ready = 1;
    long rebuilt = 0;
    ogg_packet p = {id, (long)header[0].bytes, 1, 0, 0, 0};
    if (ogg_stream_packetin(&os, &p) != 0 || add_pages(&prefix, &os, &rebuilt) != 0) goto done;
    ogg_packet c = {comments.bytes, (long)comments.len, 0, 0, 0, 1};
    if (ogg_stream_packetin(&os, &c) != 0) goto done;
    if (setup != NULL) {
        ogg_packet q = {setup, (long)header[2].bytes, 0, 0, 0, 2};
        if (ogg_stream_packetin(&os, &q) != 0) goto done;
    }
    if (add_pages(&prefix, &os, &rebuilt) != 0 || rebuilt > pages) goto done;
    for (; rebuilt < pages; rebuilt++) {
        unsigned char empty[27] = {'O', 'g', 'g', 'S', 0, 0};
        memset(empty + 6, 0xff, 8); /* granule position -1: no packet ends here */
        put_le32(empty + 14, serial);
        put_le32(empty + 18, (uint32_t)rebuilt);
        ogg_page page = {empty, 27, empty + 27, 0};
        ogg_page_checksum_set(&page);
        if (buffer_add(&prefix, empty, 27) != 0) goto done;
    }
    s->prefix = prefix.bytes;
    s->prefix_len = prefix.len;
    s->data_offset = at;
    s->skipped = skipped;
    prefix.bytes = NULL;
done:
    if (os_ready) ogg_stream_clear(&os);
    for (int i = 0; i < 3; i++) {
        free(header[i].offsets);
        free(header[i].lengths);
    }
    free(id);
    free(setup);
    free(comments.bytes);
    free(prefix.bytes);
}

jb_ogg_stream *jb_ogg_open(const char *path, int codec, uint32_t max_entry) {
    jb_ogg_stream *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (s->fd < 0 || fstat(s->fd, &st) != 0) {
        int saved = errno;
        jb_ogg_free(s);
        errno = saved;
        return NULL;
    }
    s->file_size = (uint64_t)st.st_size;
    s->sequential = S_ISFIFO(st.st_mode);
    if (!s->sequential) walk_headers(s, codec, max_entry);
    return s;
}

void jb_ogg_free(jb_ogg_stream *s) {
    if (s == NULL) return;
    if (s->fd >= 0) close(s->fd);
    free(s->prefix);
    free(s);
}

static uint64_t stream_length(const jb_ogg_stream *s) { return s->prefix_len + s->file_size - s->data_offset; }

static long stream_read(jb_ogg_stream *s, unsigned char *dst, size_t want) {
    size_t done = 0;
    while (done < want && s->pos < s->prefix_len) dst[done++] = s->prefix[s->pos++];
    while (done < want) {
        ssize_t got = s->sequential
                          ? read(s->fd, dst + done, want - done)
                          : pread(s->fd, dst + done, want - done, (off_t)(s->data_offset + s->pos - s->prefix_len));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return -1;
        if (got == 0) break;
        done += (size_t)got;
        s->pos += (uint64_t)got;
    }
    return (long)done;
}

static int stream_seek(jb_ogg_stream *s, int64_t offset, int whence) {
    if (s->sequential) return -1;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)s->pos : (int64_t)stream_length(s);
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return -1;
    int64_t pos;
    if (__builtin_add_overflow(base, offset, &pos) || pos < 0) return -1;
    s->pos = (uint64_t)pos;
    return 0;
}

size_t jb_ogg_vorbis_read(void *ptr, size_t size, size_t nmemb, void *stream) {
    if (size == 0) return 0;
    long got = stream_read(stream, ptr, size * nmemb);
    if (got < 0) {
        errno = EIO;
        return 0;
    }
    return (size_t)got / size;
}

int jb_ogg_vorbis_seek(void *stream, int64_t offset, int whence) { return stream_seek(stream, offset, whence); }
long jb_ogg_vorbis_tell(void *stream) { return (long)((jb_ogg_stream *)stream)->pos; }

int jb_ogg_opus_read(void *stream, unsigned char *ptr, int nbytes) {
    return nbytes <= 0 ? 0 : (int)stream_read(stream, ptr, (size_t)nbytes);
}

int jb_ogg_opus_seek(void *stream, int64_t offset, int whence) { return stream_seek(stream, offset, whence); }
int64_t jb_ogg_opus_tell(void *stream) { return (int64_t)((jb_ogg_stream *)stream)->pos; }
