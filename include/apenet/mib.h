/*
 * The object identifiers of APENET-MIB (mibs/APENET-MIB.txt) as constants:
 * the agent loads no MIB file at run time, and the supervisor decodes the
 * notifications with the same numbers.  tests/unit/test_mib.c checks every
 * name below against the MIB with net-snmp's snmptranslate.
 *
 * The module sits under net-snmp's experimental playpen arc
 * (netSnmpPlaypen = 1.3.6.1.4.1.8072.9999.9999) until an enterprise number
 * is assigned; moving it is APENET_OID_MIB here and the MODULE-IDENTITY's
 * last line in the MIB.
 */
#ifndef APENET_MIB_H
#define APENET_MIB_H

/* apenetMIB ::= { netSnmpPlaypen 65 } */
#define APENET_OID_MIB 1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 65
#define APENET_OID_MIB_LEN 10

/* apenetNotifications, apenetObjects, apenetConformance */
#define APENET_OID_NOTIFICATIONS APENET_OID_MIB, 0
#define APENET_OID_OBJECTS APENET_OID_MIB, 1
#define APENET_OID_CONFORMANCE APENET_OID_MIB, 2

/* The notifications: apenetNotifications.N */
#define APENET_MIB_NOTIFICATIONS(X) \
	X(HEALTH_CHANGE, "apenetHealthChange", 1) \
	X(HEARTBEAT, "apenetHeartbeat", 2)

/* The objects they carry: apenetEvent.N = apenetObjects.1.N (each a scalar
 * sent as apenetEvent.N.0). */
#define APENET_OID_EVENT APENET_OID_OBJECTS, 1
#define APENET_OID_EVENT_LEN (APENET_OID_MIB_LEN + 2)
#define APENET_MIB_EVENT_OBJECTS(X) \
	X(NODE_X, "apenetEventNodeX", 1) \
	X(NODE_Y, "apenetEventNodeY", 2) \
	X(NODE_Z, "apenetEventNodeZ", 3) \
	X(NODE_NAME, "apenetEventNodeName", 4) \
	X(BOOT_ID, "apenetEventBootId", 5) \
	X(SEQUENCE, "apenetEventSequence", 6) \
	X(TIME, "apenetEventTime", 7) \
	X(SUBJECT, "apenetEventSubject", 8) \
	X(WHERE, "apenetEventWhere", 9) \
	X(CODE, "apenetEventCode", 10) \
	X(OLD_STATUS, "apenetEventOldStatus", 11) \
	X(NEW_STATUS, "apenetEventNewStatus", 12) \
	X(VALUE, "apenetEventValue", 13) \
	X(THRESHOLD, "apenetEventThreshold", 14) \
	X(UNIT, "apenetEventUnit", 15) \
	X(PATH, "apenetEventPath", 16) \
	X(VIA_LINK, "apenetEventViaLink", 17) \
	X(EVIDENCE, "apenetEventEvidence", 18) \
	X(LDM_WORD, "apenetEventLdmWord", 19) \
	X(LDM_SUMMARY, "apenetEventLdmSummary", 20)

#define APENET_MIB_ENUM_(id, name, arc) APENET_MIB_##id = arc,
enum apenet_mib_notification { APENET_MIB_NOTIFICATIONS(APENET_MIB_ENUM_) };
enum apenet_mib_event_object { APENET_MIB_EVENT_OBJECTS(APENET_MIB_ENUM_) };
#undef APENET_MIB_ENUM_

/* The standard objects every SNMPv2 notification starts with (RFC 3416):
 * sysUpTime.0 and snmpTrapOID.0. */
#define APENET_OID_SYSUPTIME_0 1, 3, 6, 1, 2, 1, 1, 3, 0
#define APENET_OID_SNMPTRAPOID_0 1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0

#endif
