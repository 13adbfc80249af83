// libcurl for Swift: static-inline shims for its variadic calls, and lazy loading. libcurl and its
// ~40 dependent libraries are loaded with dlopen the first time a transfer needs them, so that
// commands which never use the network (`ofj day`, `ofj log`, …) do not pay for loading them.
#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>

typedef struct {
    int state; /* 0 not tried, 1 loaded, -1 unavailable */
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLcode (*easy_pause)(CURL *, int);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} ccurl_api_t;

/// The table lives in a function so that Swift (which emits no C globals) gets it too.
static inline ccurl_api_t *ccurl_api_table(void) { static ccurl_api_t api; return &api; }
#define ccurl_api (*ccurl_api_table())

/// Loads libcurl once (per importing unit; dlopen shares the library). Returns 1 when usable.
static inline int ccurl_load(void) {
    if (ccurl_api.state != 0) return ccurl_api.state == 1;
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) { ccurl_api.state = -1; return 0; }
#define CCURL_SYM(field, name) *(void **)(&ccurl_api.field) = dlsym(h, name); if (!ccurl_api.field) { ccurl_api.state = -1; return 0; }
    CCURL_SYM(global_init, "curl_global_init")
    CCURL_SYM(easy_init, "curl_easy_init")
    CCURL_SYM(easy_cleanup, "curl_easy_cleanup")
    CCURL_SYM(easy_setopt, "curl_easy_setopt")
    CCURL_SYM(easy_getinfo, "curl_easy_getinfo")
    CCURL_SYM(easy_pause, "curl_easy_pause")
    CCURL_SYM(easy_strerror, "curl_easy_strerror")
    CCURL_SYM(multi_init, "curl_multi_init")
    CCURL_SYM(multi_add_handle, "curl_multi_add_handle")
    CCURL_SYM(multi_remove_handle, "curl_multi_remove_handle")
    CCURL_SYM(multi_perform, "curl_multi_perform")
    CCURL_SYM(multi_poll, "curl_multi_poll")
    CCURL_SYM(multi_wakeup, "curl_multi_wakeup")
    CCURL_SYM(multi_info_read, "curl_multi_info_read")
    CCURL_SYM(multi_setopt, "curl_multi_setopt")
    CCURL_SYM(slist_append, "curl_slist_append")
    CCURL_SYM(slist_free_all, "curl_slist_free_all")
#undef CCURL_SYM
    ccurl_api.state = 1;
    return 1;
}

static inline int ccurl_available(void) { return ccurl_load(); }

static inline CURLcode ccurl_global_init_default(void) { return ccurl_load() ? ccurl_api.global_init(CURL_GLOBAL_DEFAULT) : CURLE_FAILED_INIT; }
static inline CURL *ccurl_easy_init(void) { return ccurl_load() ? ccurl_api.easy_init() : NULL; }
static inline void ccurl_easy_cleanup(CURL *h) { if (ccurl_load()) ccurl_api.easy_cleanup(h); }
static inline CURLcode ccurl_easy_pause(CURL *h, int bitmask) { return ccurl_load() ? ccurl_api.easy_pause(h, bitmask) : CURLE_FAILED_INIT; }
static inline size_t ccurl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline int ccurl_pause_cont(void) { return CURLPAUSE_CONT; }
static inline const char *ccurl_easy_strerror(CURLcode c) { return ccurl_load() ? ccurl_api.easy_strerror(c) : "libcurl is not available"; }
static inline CURLM *ccurl_multi_init(void) { return ccurl_load() ? ccurl_api.multi_init() : NULL; }
static inline CURLMcode ccurl_multi_add_handle(CURLM *m, CURL *h) { return ccurl_load() ? ccurl_api.multi_add_handle(m, h) : CURLM_INTERNAL_ERROR; }
static inline CURLMcode ccurl_multi_remove_handle(CURLM *m, CURL *h) { return ccurl_load() ? ccurl_api.multi_remove_handle(m, h) : CURLM_INTERNAL_ERROR; }
static inline CURLMcode ccurl_multi_perform(CURLM *m, int *running) { return ccurl_load() ? ccurl_api.multi_perform(m, running) : CURLM_INTERNAL_ERROR; }
static inline CURLMcode ccurl_multi_poll(CURLM *m, struct curl_waitfd *fds, unsigned int n, int ms, int *ret) { return ccurl_load() ? ccurl_api.multi_poll(m, fds, n, ms, ret) : CURLM_INTERNAL_ERROR; }
static inline CURLMcode ccurl_multi_wakeup(CURLM *m) { return ccurl_load() ? ccurl_api.multi_wakeup(m) : CURLM_INTERNAL_ERROR; }
static inline CURLMsg *ccurl_multi_info_read(CURLM *m, int *queued) { return ccurl_load() ? ccurl_api.multi_info_read(m, queued) : NULL; }
static inline struct curl_slist *ccurl_slist_append(struct curl_slist *l, const char *s) { return ccurl_load() ? ccurl_api.slist_append(l, s) : NULL; }
static inline void ccurl_slist_free_all(struct curl_slist *l) { if (ccurl_load()) ccurl_api.slist_free_all(l); }

// The variadic setters, which Swift cannot call.
static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return ccurl_load() ? ccurl_api.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_setopt_string(CURL *h, CURLoption o, const char *v) { return ccurl_load() ? ccurl_api.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_setopt_pointer(CURL *h, CURLoption o, void *v) { return ccurl_load() ? ccurl_api.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return ccurl_load() ? ccurl_api.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return ccurl_load() ? ccurl_api.easy_setopt(h, o, v) : CURLE_FAILED_INIT; }
typedef size_t (*ccurl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode ccurl_setopt_data_callback(CURL *h, CURLoption o, ccurl_data_callback cb) { return ccurl_load() ? ccurl_api.easy_setopt(h, o, cb) : CURLE_FAILED_INIT; }
typedef int (*ccurl_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode ccurl_setopt_xferinfo(CURL *h, ccurl_xferinfo_callback cb) { return ccurl_load() ? ccurl_api.easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb) : CURLE_FAILED_INIT; }
static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *out) { return ccurl_load() ? ccurl_api.easy_getinfo(h, i, out) : CURLE_FAILED_INIT; }
static inline CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return ccurl_load() ? ccurl_api.multi_setopt(m, o, v) : CURLM_INTERNAL_ERROR; }
typedef int (*ccurl_prereq_callback)(void *clientp, char *conn_primary_ip, char *conn_local_ip, int conn_primary_port, int conn_local_port);
static inline CURLcode ccurl_setopt_prereq(CURL *h, ccurl_prereq_callback cb) { return ccurl_load() ? ccurl_api.easy_setopt(h, CURLOPT_PREREQFUNCTION, cb) : CURLE_FAILED_INIT; }
