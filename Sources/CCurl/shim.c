#include "CCurl.h"
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdlib.h>

CURLcode aether_curl_set_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode aether_curl_set_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode aether_curl_set_pointer(CURL *handle, CURLoption option, void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode aether_curl_set_off(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
CURLcode aether_curl_set_data_callback(CURL *handle, CURLoption option, aether_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode aether_curl_info_long(CURL *handle, CURLINFO info, long *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode aether_curl_info_pointer(CURL *handle, CURLINFO info, void **value) { return curl_easy_getinfo(handle, info, value); }
CURLcode aether_curl_info_string(CURL *handle, CURLINFO info, const char **value) {
    char *text = NULL;
    CURLcode code = curl_easy_getinfo(handle, info, &text);
    *value = text;
    return code;
}

CURLMcode aether_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) { return curl_multi_setopt(multi, option, value); }

size_t aether_curl_write_pause(void) { return CURL_WRITEFUNC_PAUSE; }
int aether_curl_pause_continue(void) { return CURLPAUSE_CONT; }

CURLcode aether_curl_global_init(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

CURLcode aether_curl_info_slist(CURL *handle, CURLINFO info, struct curl_slist **value) { return curl_easy_getinfo(handle, info, value); }

static void aether_share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *user) {
    (void)handle; (void)access;
    pthread_mutex_lock(&((aether_cookie_share *)user)->locks[data]);
}

static void aether_share_unlock(CURL *handle, curl_lock_data data, void *user) {
    (void)handle;
    pthread_mutex_unlock(&((aether_cookie_share *)user)->locks[data]);
}

aether_cookie_share *aether_curl_cookie_share_new(void) {
    aether_cookie_share *made = calloc(1, sizeof *made);
    if (!made) return NULL;
    made->share = curl_share_init();
    if (!made->share) { free(made); return NULL; }
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&made->locks[i], NULL);
    curl_share_setopt(made->share, CURLSHOPT_USERDATA, made);
    curl_share_setopt(made->share, CURLSHOPT_LOCKFUNC, aether_share_lock);
    curl_share_setopt(made->share, CURLSHOPT_UNLOCKFUNC, aether_share_unlock);
    curl_share_setopt(made->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
    return made;
}

void aether_curl_cookie_share_free(aether_cookie_share *share) {
    if (!share) return;
    curl_share_cleanup(share->share);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&share->locks[i]);
    free(share);
}
