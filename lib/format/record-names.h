/* Names of the wire types events are read from, for messages.  */
#ifndef ST_RECORD_NAMES_H
#define ST_RECORD_NAMES_H

#include "model/event.h"

/* The type of the capture frame or perf record EV was read from, as the
   formats name them: "MARK", "CTRDEF", "FINISHED_ROUND", "FORK", ...
   A static or interned string.  */
const char *st_record_type_name (const StEvent *ev);

#endif /* ST_RECORD_NAMES_H */
