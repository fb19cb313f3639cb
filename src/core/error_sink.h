/*
 * error_sink.h - a place for error messages that is not a context.
 *
 * A combinator over several backends (src/multi) runs its child backends at
 * once, each on a thread of its own, and every child serves the
 * combinator's context (its options, its chunk limits). The children must
 * not write that context's one message from several threads, and the
 * combinator needs each child's message to name the device that failed. So
 * while a thread has entered a sink, fricl__fail and fricl__clear_error
 * write the sink instead of the context they are given; nothing else
 * changes for the code below.
 */
#ifndef FRICL_CORE_ERROR_SINK_H
#define FRICL_CORE_ERROR_SINK_H

typedef struct fricl__error_sink {
  char *message; /* heap; NULL: none */
} fricl__error_sink;

/* Send this thread's messages to `sink` from now on; returns the sink that
 * was entered before (NULL: the contexts), for fricl__sink_leave. */
fricl__error_sink *fricl__sink_enter(fricl__error_sink *sink);
/* Back to `previous` (what fricl__sink_enter returned). */
void fricl__sink_leave(fricl__error_sink *previous);
/* The last message written to the sink ("" when none). */
const char *fricl__sink_message(const fricl__error_sink *sink);
/* Forget the message. */
void fricl__sink_clear(fricl__error_sink *sink);

#endif
