/*
 * A module's identity (vendor, part, serial, a cable's length) from its
 * EEPROM image, whichever layout: what `apenet qualify` records a cable by.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/module.h"
#include "apenet/sff8472.h"
#include "apenet/sff8636.h"

int apenet_module_identity(const struct apenet_module_image *img, struct apenet_module_id *id, char *err,
			   size_t errlen)
{
	memset(id, 0, sizeof(*id));
	id->length_m = NAN;
	if (img->layout == APENET_EE_SFF8636) {
		static struct apenet_sff8636 m;
		if (apenet_sff8636_decode(img->b, img->len, &m, err, errlen))
			return -1;
		snprintf(id->vendor, sizeof(id->vendor), "%s", m.vendor);
		snprintf(id->part, sizeof(id->part), "%s", m.part);
		snprintf(id->serial, sizeof(id->serial), "%s", m.serial);
		id->copper = m.copper;
		if (m.copper && m.len_copper_m)
			id->length_m = m.len_copper_m;
	} else if (img->layout == APENET_EE_SFF8472) {
		static struct apenet_sff8472 m;
		if (apenet_sff8472_decode(img->b, img->len, &m, err, errlen))
			return -1;
		snprintf(id->vendor, sizeof(id->vendor), "%s", m.vendor);
		snprintf(id->part, sizeof(id->part), "%s", m.part);
		snprintf(id->serial, sizeof(id->serial), "%s", m.serial);
		id->copper = m.passive_cable || m.active_cable;
		if (id->copper && m.len_copper_m)
			id->length_m = m.len_copper_m;
	} else {
		snprintf(err, errlen, "no module EEPROM layout (EE_STATUS names none)");
		return -1;
	}
	if (!id->serial[0]) {
		snprintf(err, errlen, "the module's serial number is blank (vendor '%s', part '%s')", id->vendor, id->part);
		return -1;
	}
	return 0;
}
