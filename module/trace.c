// SPDX-License-Identifier: GPL-2.0
/* Instantiates the tracepoints declared in trace.h (TRACE_SYSTEM ordsched). */
#define CREATE_TRACE_POINTS
#include "trace.h"
