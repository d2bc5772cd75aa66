#ifndef BOARDWALK_CALSAQUIET_H
#define BOARDWALK_CALSAQUIET_H

/* alsa-lib reports its errors through a C-variadic handler (a va_list). Swift cannot
 * take one portably (Debian's Swift 6.0.3 crashes compiling such a closure), so the
 * handler is here: it formats each message and hands Swift one finished line. */

/* Receives "function: message" for each alsa-lib error, on the thread that caused it. */
typedef void (*boardwalk_alsa_message_sink)(const char *line);

/* Sends this thread's alsa-lib errors to `sink` instead of stderr (alsa-lib's error
 * handler is per thread; the sink is one for the process, the last one given). */
void boardwalk_alsa_quiet(boardwalk_alsa_message_sink sink);

#endif
