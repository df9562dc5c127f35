/*
 * PMA presets (apenet/preset.h): what `apenet sweep --save NAME` keeps of a
 * sweep's choice, as a small YAML file in the presets directory, and what
 * the node agent applies at start to the lanes its own card owns.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apenet/conf.h"
#include "apenet/preset.h"

static const unsigned regs[6] = { APENET_LANE_PMA_VOD,	 APENET_LANE_PMA_PRE,  APENET_LANE_PMA_POST1,
				  APENET_LANE_PMA_POST2, APENET_LANE_PMA_RXEQ, APENET_LANE_PMA_DCGAIN };
static const char *const pnames[6] = { "vod", "pre", "post1", "post2", "rxeq", "dcgain" };

int apenet_preset_name_ok(const char *name)
{
	if (!name[0] || strlen(name) >= APENET_PRESET_NAME_MAX)
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
		      *p == '_' || *p == '.') ||
		    (p == name && *p == '.'))
			return 0;
	return 1;
}

int apenet_preset_write(const char *dir, const struct apenet_preset *p, char *path, size_t n, struct apenet_err *e)
{
	if (!apenet_preset_name_ok(p->name))
		return apenet_err_set(e, APENET_EINVAL,
				      "preset name '%s': letters, digits, '-', '_' and '.', not first, at most %d",
				      p->name, APENET_PRESET_NAME_MAX - 1);
	char tmp[APENET_PATH_MAX + 96];
	snprintf(path, n, "%s/%s.yaml", dir, p->name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.yaml.tmp", dir, p->name);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return apenet_err_set(e, APENET_EIO, "%s: %s (the presets directory: agent.pma_presets_dir)", tmp,
				      strerror(errno));
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return apenet_err_set(e, APENET_EIO, "%s: %s", tmp, strerror(errno));
	}
	fprintf(f, "# PMA preset written by apenet sweep --save: the node agents apply it at start\n");
	fprintf(f, "name: %s\nlanes: \"", p->name);
	for (unsigned k = 0, first = 1; k < APENET_MAX_LANES; k++)
		if (p->lanes & (1u << k)) {
			fprintf(f, "%s%u", first ? "" : ",", k);
			first = 0;
		}
	fprintf(f, "\"\ntransmitter:\n  node: \"%u,%u,%u\"\n  link: \"%s\"\n", p->tx_node[0], p->tx_node[1],
		p->tx_node[2], p->tx_link);
	for (unsigned i = 0; i < 4; i++)
		fprintf(f, "  %s: %u\n", pnames[i], p->v[i]);
	fprintf(f, "receiver:\n  node: \"%u,%u,%u\"\n  link: \"%s\"\n", p->rx_node[0], p->rx_node[1], p->rx_node[2],
		p->rx_link);
	for (unsigned i = 4; i < 6; i++)
		fprintf(f, "  %s: %u\n", pnames[i], p->v[i]);
	int bad = fflush(f) || fsync(fd);
	if (fclose(f) || bad || rename(tmp, path)) {
		int err = errno;
		unlink(tmp);
		return apenet_err_set(e, APENET_EIO, "%s: %s", path, strerror(err));
	}
	return 0;
}

/* One end's section: node, link and its settings. */
static int end_of(const struct apenet_conf *c, const struct apenet_conf_node *m, const char *key, unsigned first,
		  unsigned last, unsigned node[3], char *link, size_t ln, uint8_t *v, struct apenet_err *e)
{
	const struct apenet_conf_node *s = apenet_conf_get(m, key);
	if (!s)
		return apenet_conf_error(c, m, e, "'%s' is missing", key);
	const char *keys_tx[] = { "node", "link", "vod", "pre", "post1", "post2", NULL };
	const char *keys_rx[] = { "node", "link", "rxeq", "dcgain", NULL };
	if (apenet_conf_expect(c, s, APENET_CONF_MAP, key, e) ||
	    apenet_conf_check_keys(c, s, first ? keys_rx : keys_tx, e))
		return -1;
	const struct apenet_conf_node *nn = apenet_conf_get(s, "node"), *nl = apenet_conf_get(s, "link");
	if (!nn || !nl)
		return apenet_conf_error(c, s, e, "'%s' needs node and link", key);
	if (apenet_conf_triple(c, nn, ',', node, e) || apenet_conf_expect(c, nl, APENET_CONF_SCALAR, "link", e))
		return -1;
	if (!nl->value[0] || strlen(nl->value) >= ln)
		return apenet_conf_error(c, nl, e, "'%s' is not a link name", nl->value);
	snprintf(link, ln, "%s", nl->value);
	for (unsigned i = first; i <= last; i++) {
		const struct apenet_conf_node *x = apenet_conf_get(s, pnames[i]);
		unsigned long u;
		if (!x)
			return apenet_conf_error(c, s, e, "'%s' needs %s", key, pnames[i]);
		if (apenet_conf_uint(c, x, 0, 255, &u, e))
			return -1;
		v[i] = (uint8_t)u;
	}
	return 0;
}

int apenet_preset_load(const char *path, struct apenet_preset *p, struct apenet_err *e)
{
	struct apenet_conf *c;
	memset(p, 0, sizeof(*p));
	if (apenet_conf_load(path, &c, e))
		return -1;
	static const char *const top[] = { "name", "lanes", "transmitter", "receiver", NULL };
	const struct apenet_conf_node *r = c->root, *nm, *nl;
	int rc = -1;
	if (!r || apenet_conf_expect(c, r, APENET_CONF_MAP, "a preset", e) || apenet_conf_check_keys(c, r, top, e))
		goto out;
	if (!(nm = apenet_conf_get(r, "name")) || apenet_conf_expect(c, nm, APENET_CONF_SCALAR, "name", e))
		goto missing;
	if (!apenet_preset_name_ok(nm->value)) {
		apenet_conf_error(c, nm, e, "'%s' is not a preset name", nm->value);
		goto out;
	}
	snprintf(p->name, sizeof(p->name), "%s", nm->value);
	if (!(nl = apenet_conf_get(r, "lanes")) || apenet_conf_expect(c, nl, APENET_CONF_SCALAR, "lanes", e))
		goto missing;
	for (const char *s = nl->value; *s;) {
		char *end;
		long k = strtol(s, &end, 10);
		if (end == s || k < 0 || k >= APENET_MAX_LANES || (*end && *end != ',')) {
			apenet_conf_error(c, nl, e, "lanes '%s': lane numbers 0..%d, comma separated", nl->value,
					  APENET_MAX_LANES - 1);
			goto out;
		}
		p->lanes |= 1u << k;
		s = *end ? end + 1 : end;
	}
	if (!p->lanes) {
		apenet_conf_error(c, nl, e, "lanes: none named");
		goto out;
	}
	if (end_of(c, r, "transmitter", 0, 3, p->tx_node, p->tx_link, sizeof(p->tx_link), p->v, e) ||
	    end_of(c, r, "receiver", 4, 5, p->rx_node, p->rx_link, sizeof(p->rx_link), p->v, e))
		goto out;
	rc = 0;
	goto out;
missing:
	if (!e->msg[0])
		apenet_conf_error(c, r, e, "a preset needs name, lanes, transmitter and receiver");
out:
	apenet_conf_free(c);
	return rc;
}

/* Writes settings first..last of p on link `name` of this card; how many
 * lanes (0 when the card has no such link or lane). */
static unsigned put(struct apenet_dev *d, const struct apenet_preset *p, const char *name, unsigned first,
		    unsigned last, struct apenet_err *e)
{
	unsigned l = 0, n = 0;
	while (l < d->prof->nlinks && strcmp(d->prof->links[l].name, name))
		l++;
	if (l == d->prof->nlinks) {
		apenet_err_set(e, APENET_EINVAL, "preset %s: this %s has no link %s", p->name, d->prof->name, name);
		return 0;
	}
	for (unsigned k = 0; k < d->prof->links[l].lanes; k++) {
		if (!(p->lanes & (1u << k)))
			continue;
		for (unsigned i = first; i <= last; i++)
			apenet_wr32(d, apenet_lane_off(l, k, regs[i]), p->v[i]);
		n++;
	}
	return n;
}

int apenet_preset_apply(struct apenet_dev *d, const struct apenet_preset *p, unsigned *tx_lanes, unsigned *rx_lanes,
			struct apenet_err *e)
{
	uint32_t me = apenet_rd32(d, APENET_REG_NODE_COORD);
	if (me == APENET_ALL_ONES && apenet_dev_check(d, e))
		return -1;
	unsigned xyz[3] = { APENET_GET(NODE_COORD, X, me), APENET_GET(NODE_COORD, Y, me), APENET_GET(NODE_COORD, Z, me) };
	*tx_lanes = *rx_lanes = 0;
	if (!memcmp(xyz, p->tx_node, sizeof(xyz)) && !(*tx_lanes = put(d, p, p->tx_link, 0, 3, e)) && e->msg[0])
		return -1;
	if (!memcmp(xyz, p->rx_node, sizeof(xyz)) && !(*rx_lanes = put(d, p, p->rx_link, 4, 5, e)) && e->msg[0])
		return -1;
	return 0;
}
