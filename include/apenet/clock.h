/*
 * The clocks, in one leaf every layer may use (the collectors' waits, the
 * health database, the daemons' loops, the notifier, the commands): the
 * wall clock for what is stored and shown (epoch ms), the monotonic one for
 * every wait, period and rate.  Before, dev.h had the library's monotonic
 * reader and each daemon its own pair in its loop file, which every other
 * file of the daemon then called back into.
 */
#ifndef APENET_CLOCK_H
#define APENET_CLOCK_H

#include <stdint.h>

/* CLOCK_REALTIME: ms since the epoch (times in reports, databases, files). */
int64_t apenet_clock_epoch_ms(void);
/* CLOCK_MONOTONIC: ms, us and s since an arbitrary start (waits, periods). */
int64_t apenet_clock_mono_ms(void);
int64_t apenet_clock_mono_us(void);
double apenet_clock_mono_s(void);

#endif
