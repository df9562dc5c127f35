/* Deterministic random numbers for the firmware model (xoshiro256**), so a
 * run with the same --seed replays the same faults and noise. */
#include <math.h>

#include "sim.h"

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void sim_rng_seed(struct sim_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

double sim_rng_uniform(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

double sim_rng_normal(struct sim_rng *r)
{
	double u = sim_rng_uniform(r), v = sim_rng_uniform(r);
	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* Knuth's product method for small means, a normal approximation above. */
uint64_t sim_rng_poisson(struct sim_rng *r, double mean)
{
	if (!(mean > 0))
		return 0;
	if (mean < 30) {
		double l = exp(-mean), p = 1.0;
		uint64_t k = 0;
		do {
			k++;
			p *= sim_rng_uniform(r);
		} while (p > l);
		return k - 1;
	}
	double x = mean + sqrt(mean) * sim_rng_normal(r) + 0.5;
	return x < 0 ? 0 : (uint64_t)x;
}
