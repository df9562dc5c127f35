/*
 * SNMPv2c notifications read straight from their bytes, for a receiver
 * that takes tens of thousands a second (the supervisor; docs/supervisor.md,
 * "Load").
 *
 * net-snmp's parse allocates a PDU, each variable and each value, and a
 * session's dispatch around it: about a quarter of what the supervisor
 * spent per report.  apenet_v2c_parse reads an SNMPv2c INFORM or TRAP2 into
 * a netsnmp_pdu and variable list that live in the caller's struct, the
 * values pointing into the message or into the struct: no allocation.  The
 * result is read by the same decoder as net-snmp's (apenet_report_from_pdu),
 * so there is one codec of APENET-MIB's notifications, not two.
 *
 * It reads only what it is sure of: definite lengths, the types SNMPv2c
 * bindings carry, values that fit their C types, error fields of 0.
 * Anything else (SNMPv1 or v3, another PDU, more than 32
 * bindings, a long OID) returns -1, and the caller hands the message to
 * net-snmp as before; the report fuzzer checks that both readings agree on
 * whatever this one accepts.
 */
#ifndef APENET_V2C_H
#define APENET_V2C_H

#include <stddef.h>
#include <stdint.h>

struct snmp_pdu; /* netsnmp_pdu */
struct apenet_v2c_msg; /* the PDU, its bindings and their values (snmp/v2c_fast.c) */

/* A reader's storage (some 50 KB, reused message after message), or NULL
 * when out of memory; freed with free(). */
struct apenet_v2c_msg *apenet_v2c_new(void);

/* 0 with m filled (pointing into msg, which must outlive the use of the
 * PDU), or -1: then let net-snmp read msg. */
int apenet_v2c_parse(const uint8_t *msg, size_t len, struct apenet_v2c_msg *m);

/* The same for a PDU alone (an SNMPv3 ScopedPDU's, decrypted: snmp/usm.c):
 * command, reqid and variables set, version 0 (the caller's to set). */
int apenet_v2c_parse_pdu(const uint8_t *pdu, size_t len, struct apenet_v2c_msg *m);

/* The PDU of the last message parsed: version, command, reqid,
 * community and variables set; net-snmp must not free or clone it. */
struct snmp_pdu *apenet_v2c_pdu(struct apenet_v2c_msg *m);

#endif
