// Linked into the aarch64 jukeboxd by Board/cross-aarch64.sh. The Swift runtime it links comes
// from Debian's swiftlang, compiled against glibc 2.42: its headers turn strtol, strtoll and
// sscanf into their C23 forms (__isoc23_*), and libdispatch calls strlcpy, all glibc 2.38
// symbols that Debian 12's glibc 2.36 lacks. The C23 forms differ only in accepting a 0b
// prefix, which the runtime never parses (it reads environment variables and /proc/self/maps).
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long __isoc23_strtol(const char *text, char **end, int base) { return strtol(text, end, base); }

long long __isoc23_strtoll(const char *text, char **end, int base) { return strtoll(text, end, base); }

int __isoc23_sscanf(const char *text, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int count = vsscanf(text, format, arguments);
    va_end(arguments);
    return count;
}

// As glibc 2.38 (and the BSDs): copies what fits, always terminated; returns strlen(source).
size_t strlcpy(char *target, const char *source, size_t size) {
    size_t length = strlen(source);
    if (size > 0) {
        size_t copied = length < size - 1 ? length : size - 1;
        memcpy(target, source, copied);
        target[copied] = '\0';
    }
    return length;
}
