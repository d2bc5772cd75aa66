#include "CALSAQuiet.h"

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

static _Atomic(boardwalk_alsa_message_sink) message_sink;

static void forward(const char *file, int line, const char *function, int err,
                    const char *format, va_list arguments) {
    (void)file; (void)line; (void)err;
    boardwalk_alsa_message_sink sink = message_sink;
    if (sink == NULL || format == NULL) return;
    char text[320];
    int n = snprintf(text, sizeof text, "%s: ", function ? function : "?");
    if (n < 0 || (size_t)n >= sizeof text) n = 0;
    vsnprintf(text + n, sizeof text - (size_t)n, format, arguments);
    sink(text);
}

void boardwalk_alsa_quiet(boardwalk_alsa_message_sink sink) {
    message_sink = sink;
    snd_lib_error_set_local(forward);
}
