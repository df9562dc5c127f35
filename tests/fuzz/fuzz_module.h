/* Checks shared by the module EEPROM targets (fuzz_sff8636, fuzz_sff8472). */
#ifndef APENET_FUZZ_MODULE_H
#define APENET_FUZZ_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/module.h"

/* A decoded string: NUL-terminated inside its field, printable ASCII only
 * (the decoders promise it: it goes to terminals and JSON as is). */
void apenet_fuzz_check_text(const char *s, size_t cap);
/* The health part: what the judge may rely on; and the judge on it. */
void apenet_fuzz_check_health(const struct apenet_module_health *h, unsigned lanes);
/* data as a raw dump file: loaded and identified; an image the loader
 * accepts is one its decoder accepts too. */
void apenet_fuzz_module_file(const uint8_t *data, size_t size, struct apenet_module_image *img);
/* data as a card's EEPROM window (bytes 0-1: EE_STATUS, the rest the
 * window, zero-padded): the image the window gives. */
void apenet_fuzz_module_window(const uint8_t *data, size_t size, struct apenet_module_image *img);

#endif
