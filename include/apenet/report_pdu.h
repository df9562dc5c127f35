/*
 * A report (include/apenet/notify.h, struct apenet_report) as an SNMP
 * notification PDU of APENET-MIB (mibs/APENET-MIB.txt), and back: the one
 * definition of the wire format that the agent's notifier encodes with and
 * the supervisors decode with.
 *
 * The PDU: sysUpTime.0 (TimeTicks), snmpTrapOID.0 (apenetHealthChange or
 * apenetHeartbeat), then the notification's OBJECTS in the MIB's order, each
 * as apenetEvent.N.0:
 *
 *   object (N)                     type          struct field
 *   apenetEventNodeX/Y/Z (1-3)     Unsigned32    x, y, z        0..65535
 *   apenetEventNodeName (4)        OCTET STRING  node           0..63 bytes
 *   apenetEventBootId (5)          OCTET STRING  boot           1..39 bytes
 *   apenetEventSequence (6)        Counter64     seq            0..2^63-1
 *   apenetEventTime (7)            Counter64     time_ms        0..2^63-1
 *   health changes only:
 *   apenetEventSubject (8)         INTEGER       subject        1..7
 *   apenetEventWhere (9)           OCTET STRING  where          0..23 bytes
 *   apenetEventCode (10)           OCTET STRING  code           0..31 bytes
 *   apenetEventOldStatus (11)      INTEGER       old_status     1..4 = status + 1
 *   apenetEventNewStatus (12)      INTEGER       new_status     1..4 = status + 1
 *   apenetEventValue (13)          OCTET STRING  value          decimal text, "" = NaN
 *   apenetEventThreshold (14)      OCTET STRING  threshold      decimal text, "" = NaN
 *   apenetEventUnit (15)           OCTET STRING  unit           0..15 bytes
 *   apenetEventPath (16)           INTEGER       path           1..3
 *   apenetEventViaLink (17)        OCTET STRING  via            0..7 bytes
 *   apenetEventEvidence (18)       OCTET STRING  evidence       0..199 bytes
 *   heartbeats only:
 *   apenetEventLdmWord (19)        Unsigned32    ldm
 *   apenetEventLdmSummary (20)     OCTET STRING  evidence       0..199 bytes
 *
 * The string limits are the struct's field sizes less the NUL (and the
 * MIB's SIZE clauses); a decimal is at most 32 bytes: the shortest of %.15g,
 * %.16g, %.17g that reads back to the same double (apenet_report_decimal),
 * "inf" and "-inf" included.
 *
 * net-snmp's headers are not needed to include this one: struct snmp_pdu is
 * net-snmp's netsnmp_pdu.
 */
#ifndef APENET_REPORT_PDU_H
#define APENET_REPORT_PDU_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/err.h"
#include "apenet/notify.h"

struct snmp_pdu; /* netsnmp_pdu */

/* Whether r is a report the codec carries and reads back as it is: kind
 * health or heartbeat, texts NUL-terminated within their fields, a boot id,
 * coordinates 0..65535, seq at most 2^63-1; for a health change subject
 * 1..7, statuses 0..3 and path 1..3.  The spool stores only what passes
 * (apenet_notifier_submit refuses the rest), so every stored report can be
 * sent.  The message names the field ("event: subject 9 out of range
 * 1..7").  0 or -1 (APENET_EINVAL). */
int apenet_report_check(const struct apenet_report *r, struct apenet_err *e);

/* The notification of r: a new SNMPv2 INFORM PDU (set ->command to
 * SNMP_MSG_TRAP2 for a trap), its sysUpTime.0 uptime_cs hundredths of a
 * second.  A heartbeat's summary is r->evidence, or the summary of r->ldm
 * when that is empty; a negative time_ms goes as 0.  The caller sends it
 * (net-snmp frees it then) or frees it with snmp_free_pdu.  NULL when r
 * fails apenet_report_check (APENET_EINVAL) or memory ran out (APENET_EIO). */
struct snmp_pdu *apenet_report_pdu(const struct apenet_report *r, uint32_t uptime_cs, struct apenet_err *e);

/*
 * The report a received notification carries: the inverse of
 * apenet_report_pdu, for a supervisor (the PDU as a net-snmp receiving
 * session hands it over, SNMPv2c or v3 alike).
 *
 * The PDU must be an INFORM or an SNMPv2 trap whose snmpTrapOID.0 is
 * apenetHealthChange or apenetHeartbeat.  Every apenetEvent.N.0 of that
 * notification is read with the type above; a wrong type, a number out of
 * range, a text longer than its field or holding a NUL byte, a decimal that
 * is not one, or an object given twice is refused.  Mandatory: node X, Y,
 * Z, boot id and sequence; for a health change also subject, code, both
 * statuses and path; for a heartbeat its LDM word.  What is absent of the
 * rest keeps apenet_report_init's value (texts "", value and threshold NaN,
 * time 0).  sysUpTime.0, varbinds outside apenetEvent.N.0 and objects of
 * the other notification are ignored, so that a later agent may send more.
 *
 * A heartbeat's apenetEventLdmSummary lands in r->evidence; an empty or
 * absent one is made from the word (apenet_report_ldm_summary), as the
 * encoder does.  What decodes passes apenet_report_check, and its encoding
 * decodes to the same report again.
 *
 * 0, or -1 (APENET_EINVAL) with a message that names the varbind:
 * "apenetEventNewStatus: INTEGER 7 out of range 1..4",
 * "apenetEventNodeX: OCTET STRING where Unsigned32 belongs",
 * "apenetEventCode: missing (mandatory in apenetHealthChange)".
 * On error *r holds what was read so far and is not to be used.
 */
int apenet_report_from_pdu(const struct snmp_pdu *pdu, struct apenet_report *r, struct apenet_err *e);

/*
 * The RESPONSE to the SNMPv2c INFORM msg (len bytes, as received), written
 * to out: the same message with the PDU tag InformRequest (0xA6) turned
 * into Response (0xA2), which is what RFC 3416 asks for (same request-id
 * and bindings, error-index 0), and error-status errstat (0 noError; 5
 * genErr for a refusal; at most 127).  Its length (= len), or 0 when msg is
 * not a well-formed SNMPv2c INFORM with zero error fields or does not fit
 * in cap: then build the answer with net-snmp.  Pure; snmp/v2c_ack.c.
 */
size_t apenet_v2c_inform_ack(const uint8_t *msg, size_t len, unsigned errstat, uint8_t *out, size_t cap);

/* Whether the node at who (an authenticated SNMPv3 user, node-X,Y,Z) may
 * have sent report r (snmp/speaker.c; docs/security.md): its boot id must
 * name who; a heartbeat, and a transition seen on the self or watchdog
 * path, must be about who; a transition on the neighbour-LDM path must be
 * about the neighbour behind who's link r->via.  dims: the torus'
 * dimensions when the config gives them (the neighbour exactly, wraparound
 * included), NULL (the neighbour's axis and direction only).  1, or 0 with
 * why. */
int apenet_report_speaker_ok(const struct apenet_report *r, const unsigned who[3], const unsigned *dims, char *why,
			     size_t whylen);

#endif
