#include "curl_transfer.h"

#include "lazy_libraries.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CLazyLibraries opens libcurl (and runs curl_global_init) and defines the curl functions
   called here. */
const char *jb_curl_load(void) { return jb_lazy_load(JB_LIB_CURL); }

struct jb_curl {
    CURL *easy;
    char error[CURL_ERROR_SIZE];
};

jb_curl *jb_curl_new(void) {
    if (jb_curl_load() != NULL) return NULL;
    jb_curl *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->easy = curl_easy_init();
    if (c->easy == NULL) {
        free(c);
        return NULL;
    }
    return c;
}

void jb_curl_free(jb_curl *c) {
    if (c == NULL) return;
    curl_easy_cleanup(c->easy);
    free(c);
}

struct context {
    jb_curl_data header, body;
    jb_curl_tick tick;
    void *user;
};

static size_t header(char *data, size_t size, size_t count, void *pointer) {
    struct context *context = pointer;
    return context->header(context->user, data, size * count);
}

static size_t body(char *data, size_t size, size_t count, void *pointer) {
    struct context *context = pointer;
    return context->body(context->user, data, size * count);
}

static int progress(void *pointer, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    struct context *context = pointer;
    return context->tick(context->user);
}

int jb_curl_get(jb_curl *c, const jb_curl_request *r, jb_curl_data on_header, jb_curl_data on_body, jb_curl_tick tick,
                void *user, long *status, char *message, size_t message_len) {
    CURL *e = c->easy;
    /* A reused handle keeps its connections and DNS cache; the options start afresh. */
    curl_easy_reset(e);
    c->error[0] = 0;
    *status = 0;
    struct curl_slist *headers = NULL;
    for (int i = 0; i < r->header_count; i++) {
        struct curl_slist *longer = curl_slist_append(headers, r->headers[i]);
        if (longer == NULL) {
            curl_slist_free_all(headers);
            snprintf(message, message_len, "%s", curl_easy_strerror(CURLE_OUT_OF_MEMORY));
            return CURLE_OUT_OF_MEMORY;
        }
        headers = longer;
    }
    struct context context = {on_header, on_body, tick, user};
    CURLcode code = CURLE_OK;
#define SET(option, value) \
    if (code == CURLE_OK) code = curl_easy_setopt(e, option, value)
    SET(CURLOPT_ERRORBUFFER, c->error);
    SET(CURLOPT_URL, r->url);
    SET(CURLOPT_USERAGENT, r->user_agent);
    SET(CURLOPT_HTTPHEADER, headers);
    /* Only the web: a redirect to file:// or any other scheme curl knows is refused. */
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    /* Signals are the daemon's; curl must not use SIGALRM for its DNS timeouts. */
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_FAILONERROR, 1L);
    SET(CURLOPT_FOLLOWLOCATION, r->max_redirects > 0 ? 1L : 0L);
    SET(CURLOPT_MAXREDIRS, r->max_redirects);
    SET(CURLOPT_CONNECTTIMEOUT_MS, r->connect_timeout_ms);
    SET(CURLOPT_LOW_SPEED_LIMIT, r->low_speed_bytes);
    SET(CURLOPT_LOW_SPEED_TIME, r->low_speed_seconds);
    SET(CURLOPT_SSL_VERIFYPEER, r->verify_tls ? 1L : 0L);
    SET(CURLOPT_SSL_VERIFYHOST, r->verify_tls ? 2L : 0L);
    if (r->max_body_bytes > 0) SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->max_body_bytes);
    if (r->resume_from > 0) SET(CURLOPT_RESUME_FROM_LARGE, (curl_off_t)r->resume_from);
    SET(CURLOPT_HEADERFUNCTION, header);
    SET(CURLOPT_HEADERDATA, &context);
    SET(CURLOPT_WRITEFUNCTION, body);
    SET(CURLOPT_WRITEDATA, &context);
    SET(CURLOPT_NOPROGRESS, 0L);
    SET(CURLOPT_XFERINFOFUNCTION, progress);
    SET(CURLOPT_XFERINFODATA, &context);
#undef SET
    if (code == CURLE_OK) code = curl_easy_perform(e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
    /* The options must not point at this frame's list and context once it returns. */
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, (void *)NULL);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, (void *)NULL);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, (void *)NULL);
    curl_slist_free_all(headers);
    if (code != CURLE_OK) {
        snprintf(message, message_len, "%s", c->error[0] != 0 ? c->error : curl_easy_strerror(code));
    }
    return code;
}

const char *jb_curl_effective_url(jb_curl *c) {
    char *url = NULL;
    if (curl_easy_getinfo(c->easy, CURLINFO_EFFECTIVE_URL, &url) != CURLE_OK) return NULL;
    return url;
}
