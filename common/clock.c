/* The clocks (include/apenet/clock.h). */
#include <time.h>

#include "apenet/clock.h"

static struct timespec now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts;
}

int64_t apenet_clock_epoch_ms(void)
{
	struct timespec ts = now(CLOCK_REALTIME);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t apenet_clock_mono_ms(void)
{
	struct timespec ts = now(CLOCK_MONOTONIC);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t apenet_clock_mono_us(void)
{
	struct timespec ts = now(CLOCK_MONOTONIC);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

double apenet_clock_mono_s(void)
{
	struct timespec ts = now(CLOCK_MONOTONIC);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
