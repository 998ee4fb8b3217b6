// SPDX-License-Identifier: GPL-2.0
/* The one place ordsched's tracepoints are instantiated (see trace.h). */
#include <linux/types.h>

#define CREATE_TRACE_POINTS
#include "trace.h"
