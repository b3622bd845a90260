#include "CCurl.h"
#include <openssl/crypto.h>

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
