#ifndef JUKEBOX_CURL_TRANSFER_H
#define JUKEBOX_CURL_TRANSFER_H
#include <stddef.h>
#include <stdint.h>

/* HTTP(S) transfers through libcurl, for the HTTP wrapper (Sources/HTTP).

   libcurl is not linked: Debian's libcurl4 pulls in 30 shared libraries (OpenSSL, GnuTLS,
   Kerberos, LDAP, libssh2, nghttp2, ...), which cost a process that never streams 6 MB
   resident (1.1 MB of it private) and 12 million instructions in the dynamic loader at every
   start (docs/ARCHITECTURE.md). CLazyLibraries opens it with dlopen by its soname, on the
   first transfer, and defines the curl functions called in curl_transfer.c. The curl types stay
   there: Swift sees these functions only, and never curl_easy_setopt's variadic arguments. */

/* Loads libcurl and runs curl_global_init if that is not done yet (thread-safe, once).
   NULL when loaded, else the reason (dlopen's or curl_global_init's text), the same on every
   later call. */
const char *jb_curl_load(void);

/* One easy handle (and its connection cache): used by one thread at a time. */
typedef struct jb_curl jb_curl;

/* NULL when libcurl is not loaded or out of memory. */
jb_curl *jb_curl_new(void);
void jb_curl_free(jb_curl *c);

typedef struct {
    const char *url;
    const char *user_agent;
    const char *const *headers; /* "Name: value" lines added to the request */
    int header_count;
    long connect_timeout_ms;  /* connecting, TLS included */
    long low_speed_bytes;     /* below this many bytes per second ... */
    long low_speed_seconds;   /* ... for this long: the transfer fails (a stalled server) */
    int64_t max_body_bytes;   /* > 0: a larger announced Content-Length fails at once */
    long max_redirects;       /* 0: a redirect fails */
    int verify_tls;           /* 0 turns peer and host verification off */
    int64_t resume_from;      /* > 0: asks for the body from this byte on (Range) */
} jb_curl_request;

/* Gets each received header line (status lines of redirects too, with their CRLF), and body
   bytes. Returns `length` to go on; anything else stops the transfer. */
typedef size_t (*jb_curl_data)(void *context, const char *data, size_t length);
/* Called at least once a second while a transfer runs, also when no byte arrives. Nonzero
   stops it. */
typedef int (*jb_curl_tick)(void *context);

/* Performs a GET. Returns 0 when the body ended, else a CURLcode (a callback that stopped
   the transfer gives CURLE_WRITE_ERROR or CURLE_ABORTED_BY_CALLBACK) with `message` holding
   curl's text for it (the error buffer's, which names the detail, or curl_easy_strerror's). `*status` is the last response's status code (0
   when none came). */
int jb_curl_get(jb_curl *c, const jb_curl_request *request, jb_curl_data header, jb_curl_data body,
                jb_curl_tick tick, void *context, long *status, char *message, size_t message_len);

/* The URL of the last transfer after redirects (belongs to the handle, valid until its next
   transfer); NULL when unknown. */
const char *jb_curl_effective_url(jb_curl *c);
#endif
