#ifndef AETHER_CCURL_SHIM_H
#define AETHER_CCURL_SHIM_H
#include <curl/curl.h>
#include <pthread.h>

/* libcurl's option and information calls are variadic, which Swift cannot call: one typed
   function each. Every remote byte of the player goes through libcurl (AetherTransport). */
CURLcode aether_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode aether_curl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode aether_curl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode aether_curl_set_off(CURL *handle, CURLoption option, curl_off_t value);

/* A body or header callback (CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION). */
typedef size_t (*aether_curl_data_callback)(char *data, size_t size, size_t count, void *user);
CURLcode aether_curl_set_data_callback(CURL *handle, CURLoption option, aether_curl_data_callback callback);

CURLcode aether_curl_info_long(CURL *handle, CURLINFO info, long *value);
CURLcode aether_curl_info_pointer(CURL *handle, CURLINFO info, void **value);
CURLcode aether_curl_info_string(CURL *handle, CURLINFO info, const char **value);

CURLcode aether_curl_info_slist(CURL *handle, CURLINFO info, struct curl_slist **value);

/* A share of cookies (CURL_LOCK_DATA_COOKIE) between easy handles, whichever threads run them:
   its lock callbacks take one mutex per kind of data. Freed by aether_curl_cookie_share_free
   once no easy handle uses it. */
typedef struct aether_cookie_share {
    CURLSH *share;
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
} aether_cookie_share;
aether_cookie_share *aether_curl_cookie_share_new(void);
void aether_curl_cookie_share_free(aether_cookie_share *share);

CURLMcode aether_curl_multi_set_long(CURLM *multi, CURLMoption option, long value);

/* libcurl's global set-up, OpenSSL's first: with no clean-up at exit (OPENSSL_INIT_NO_ATEXIT).
   OpenSSL's atexit handler frees its tables while a thread that used it may be ending beside
   exit(3), whose thread-exit handler reads them (openssl/openssl#6214): a corrupt heap. The
   process's end frees that memory anyway. */
CURLcode aether_curl_global_init(void);

/* CURL_WRITEFUNC_PAUSE, CURLPAUSE_CONT and the other function-like or cast macros. */
size_t aether_curl_write_pause(void);
int aether_curl_pause_continue(void);
#endif
