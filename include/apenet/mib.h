/*
 * The object identifiers of APENET-MIB (mibs/APENET-MIB.txt) as constants:
 * the agent loads no MIB file at run time, and the supervisor decodes the
 * notifications with the same numbers.  tests/unit/snmp/test_mib.c checks every
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

/*
 * The node tables a node agent serves over AgentX (snmp/mib_node.c):
 * apenetObjects.T.1.C, T the table's arc, C the column.  Each row of a
 * list: X(TABLE, COLUMN, name, column arc, ASN.1 base type).  The index
 * columns (not-accessible) are not listed: every table's own index is its
 * column 1 (apenetWatchdogTable has none: it is indexed by the card;
 * apenetNodeTable has three, X, Y and Z).
 */
#define APENET_MIB_TABLES(X) \
	X(CARD, "apenetCardTable", 2) \
	X(LINK, "apenetLinkTable", 3) \
	X(LANE, "apenetLaneTable", 4) \
	X(SENSOR, "apenetSensorTable", 5) \
	X(LDM, "apenetLdmTable", 6) \
	X(WATCHDOG, "apenetWatchdogTable", 7) \
	X(NODES, "apenetNodeTable", 8) \
	X(INCIDENT, "apenetIncidentTable", 9) \
	X(CERT, "apenetCertTable", 10) \
	X(MODULE, "apenetModuleTable", 11)

#define APENET_MIB_CARD_COLUMNS(X) \
	X(CARD, BDF, "apenetCardBdf", 2, STRING) \
	X(CARD, VARIANT, "apenetCardVariant", 3, STRING) \
	X(CARD, FIRMWARE, "apenetCardFirmware", 4, STRING) \
	X(CARD, NODE, "apenetCardNode", 5, STRING) \
	X(CARD, NODE_NAME, "apenetCardNodeName", 6, STRING) \
	X(CARD, PCIE_TRAINED, "apenetCardPcieTrained", 7, STRING) \
	X(CARD, PCIE_CAPABLE, "apenetCardPcieCapable", 8, STRING) \
	X(CARD, SEVERITY, "apenetCardSeverity", 9, INTEGER) \
	X(CARD, CODE, "apenetCardCode", 10, STRING) \
	X(CARD, FINDINGS, "apenetCardFindings", 11, GAUGE) \
	X(CARD, SAMPLE_AGE, "apenetCardSampleAge", 12, UNSIGNED) \
	X(CARD, PERIODS, "apenetCardPeriods", 13, COUNTER64)

#define APENET_MIB_LINK_COLUMNS(X) \
	X(LINK, NAME, "apenetLinkName", 2, STRING) \
	X(LINK, STATE, "apenetLinkState", 3, INTEGER) \
	X(LINK, LANES_UP, "apenetLinkLanesUp", 4, GAUGE) \
	X(LINK, LANES, "apenetLinkLanes", 5, GAUGE) \
	X(LINK, LANE_RATE, "apenetLinkLaneRate", 6, GAUGE) \
	X(LINK, PARTNER_NODE, "apenetLinkPartnerNode", 7, STRING) \
	X(LINK, PARTNER_LINK, "apenetLinkPartnerLink", 8, STRING) \
	X(LINK, TX_BYTES, "apenetLinkTxBytes", 9, COUNTER64) \
	X(LINK, RX_BYTES, "apenetLinkRxBytes", 10, COUNTER64) \
	X(LINK, TX_PKTS, "apenetLinkTxPkts", 11, COUNTER64) \
	X(LINK, RX_PKTS, "apenetLinkRxPkts", 12, COUNTER64) \
	X(LINK, HDR_CRC_ERRORS, "apenetLinkHdrCrcErrors", 13, COUNTER64) \
	X(LINK, FTR_CRC_ERRORS, "apenetLinkFtrCrcErrors", 14, COUNTER64) \
	X(LINK, RETRANS, "apenetLinkRetrans", 15, COUNTER64) \
	X(LINK, PAYLOAD_ERRORS, "apenetLinkPayloadErrors", 16, COUNTER64) \
	X(LINK, DOWN_EVENTS, "apenetLinkDownEvents", 17, COUNTER64) \
	X(LINK, ALIGN_RESTARTS, "apenetLinkAlignRestarts", 18, COUNTER64) \
	X(LINK, TX_RATE, "apenetLinkTxRate", 19, GAUGE) \
	X(LINK, RX_RATE, "apenetLinkRxRate", 20, GAUGE) \
	X(LINK, CRC_RATE, "apenetLinkCrcRate", 21, GAUGE) \
	X(LINK, RETRANS_RATE, "apenetLinkRetransRate", 22, GAUGE) \
	X(LINK, SEVERITY, "apenetLinkSeverity", 23, INTEGER) \
	X(LINK, CODE, "apenetLinkCode", 24, STRING) \
	X(LINK, UP_TIME, "apenetLinkUpTime", 25, UNSIGNED) \
	X(LINK, FIFO_HIGH_WATER, "apenetLinkFifoHighWater", 26, GAUGE)

#define APENET_MIB_LANE_COLUMNS(X) \
	X(LANE, PHASE, "apenetLanePhase", 2, INTEGER) \
	X(LANE, CODE_VIOLATIONS, "apenetLaneCodeViolations", 3, COUNTER64) \
	X(LANE, DISPARITY_ERRORS, "apenetLaneDisparityErrors", 4, COUNTER64) \
	X(LANE, ALIGN_RESTARTS, "apenetLaneAlignRestarts", 5, COUNTER) \
	X(LANE, VOD, "apenetLaneVod", 6, UNSIGNED) \
	X(LANE, PRE_TAP, "apenetLanePreTap", 7, UNSIGNED) \
	X(LANE, POST_TAP1, "apenetLanePostTap1", 8, UNSIGNED) \
	X(LANE, POST_TAP2, "apenetLanePostTap2", 9, UNSIGNED) \
	X(LANE, RX_EQ, "apenetLaneRxEq", 10, UNSIGNED) \
	X(LANE, DC_GAIN, "apenetLaneDcGain", 11, UNSIGNED)

#define APENET_MIB_SENSOR_COLUMNS(X) \
	X(SENSOR, NAME, "apenetSensorName", 2, STRING) \
	X(SENSOR, UNIT, "apenetSensorUnit", 3, STRING) \
	X(SENSOR, VALUE, "apenetSensorValue", 4, INTEGER) \
	X(SENSOR, PRESENT, "apenetSensorPresent", 5, INTEGER) \
	X(SENSOR, LOW_WARN, "apenetSensorLowWarn", 6, STRING) \
	X(SENSOR, LOW_FAIL, "apenetSensorLowFail", 7, STRING) \
	X(SENSOR, HIGH_WARN, "apenetSensorHighWarn", 8, STRING) \
	X(SENSOR, HIGH_FAIL, "apenetSensorHighFail", 9, STRING) \
	X(SENSOR, SEVERITY, "apenetSensorSeverity", 10, INTEGER)

#define APENET_MIB_LDM_COLUMNS(X) \
	X(LDM, SOURCE, "apenetLdmSource", 2, STRING) \
	X(LDM, NODE, "apenetLdmNode", 3, STRING) \
	X(LDM, RAW_WORD, "apenetLdmRawWord", 4, UNSIGNED) \
	X(LDM, VALID, "apenetLdmValid", 5, INTEGER) \
	X(LDM, HOST_EXPIRED, "apenetLdmHostExpired", 6, INTEGER) \
	X(LDM, WORST, "apenetLdmWorst", 7, INTEGER) \
	X(LDM, SERVICE, "apenetLdmService", 8, INTEGER) \
	X(LDM, MEMORY, "apenetLdmMemory", 9, INTEGER) \
	X(LDM, PERIPHERAL, "apenetLdmPeripheral", 10, INTEGER) \
	X(LDM, CORE, "apenetLdmCore", 11, INTEGER) \
	X(LDM, CURRENT, "apenetLdmCurrent", 12, INTEGER) \
	X(LDM, VOLTAGE, "apenetLdmVoltage", 13, INTEGER) \
	X(LDM, TEMPERATURE, "apenetLdmTemperature", 14, INTEGER) \
	X(LDM, Z_MINUS, "apenetLdmZMinus", 15, INTEGER) \
	X(LDM, Z_PLUS, "apenetLdmZPlus", 16, INTEGER) \
	X(LDM, Y_MINUS, "apenetLdmYMinus", 17, INTEGER) \
	X(LDM, Y_PLUS, "apenetLdmYPlus", 18, INTEGER) \
	X(LDM, X_MINUS, "apenetLdmXMinus", 19, INTEGER) \
	X(LDM, X_PLUS, "apenetLdmXPlus", 20, INTEGER) \
	X(LDM, AGE, "apenetLdmAge", 21, UNSIGNED)

#define APENET_MIB_WATCHDOG_COLUMNS(X) \
	X(WATCHDOG, ENABLED, "apenetWdEnabled", 1, INTEGER) \
	X(WATCHDOG, PERIOD, "apenetWdPeriod", 2, UNSIGNED) \
	X(WATCHDOG, TIMEOUT_BEATS, "apenetWdTimeoutBeats", 3, UNSIGNED) \
	X(WATCHDOG, HOST_BEAT, "apenetWdHostBeat", 4, COUNTER) \
	X(WATCHDOG, DNP_BEAT, "apenetWdDnpBeat", 5, COUNTER) \
	X(WATCHDOG, DNP_STATE, "apenetWdDnpState", 6, INTEGER) \
	X(WATCHDOG, HOST_STATE, "apenetWdHostState", 7, INTEGER) \
	X(WATCHDOG, EXPIRE_COUNT, "apenetWdExpireCount", 8, COUNTER)

/* The latest certificate of each link's cable (augments apenetLinkEntry:
 * indexed by card and link, no index column of its own). */
#define APENET_MIB_CERT_COLUMNS(X) \
	X(CERT, SERIAL, "apenetCertSerial", 1, STRING) \
	X(CERT, VERDICT, "apenetCertVerdict", 2, INTEGER) \
	X(CERT, UPPER, "apenetCertUpper", 3, STRING) \
	X(CERT, TARGET, "apenetCertTarget", 4, STRING) \
	X(CERT, BITS, "apenetCertBits", 5, COUNTER64) \
	X(CERT, ERRORS, "apenetCertErrors", 6, COUNTER64) \
	X(CERT, SWEPT, "apenetCertSwept", 7, INTEGER) \
	X(CERT, TIME, "apenetCertTime", 8, UNSIGNED) \
	X(CERT, FAR_NODE, "apenetCertFarNode", 9, STRING) \
	X(CERT, FAR_LINK, "apenetCertFarLink", 10, STRING)

/* apenetModuleTable augments apenetLaneTable: all three are ApenetDecimal. */
#define APENET_MIB_MODULE_COLUMNS(X) \
	X(MODULE, RX_POWER, "apenetModuleRxPower", 1, STRING) \
	X(MODULE, RX_POWER_LOW_WARN, "apenetModuleRxPowerLowWarn", 2, STRING) \
	X(MODULE, RX_POWER_LOW_ALARM, "apenetModuleRxPowerLowAlarm", 3, STRING)

/* The cluster tables a supervisor serves (snmp/mib_cluster.c):
 * apenetNodeTable is indexed by X, Y, Z (its columns 1 to 3). */
#define APENET_MIB_NODES_COLUMNS(X) \
	X(NODES, NAME, "apenetNodeName", 4, STRING) \
	X(NODES, CLASS, "apenetNodeClass", 5, INTEGER) \
	X(NODES, SUMMARY, "apenetNodeSummary", 6, STRING) \
	X(NODES, SELF_AGE, "apenetNodeSelfAge", 7, UNSIGNED) \
	X(NODES, TORUS_AGE, "apenetNodeTorusAge", 8, UNSIGNED) \
	X(NODES, BOOT_ID, "apenetNodeBootId", 9, STRING) \
	X(NODES, LDM_WORD, "apenetNodeLdmWord", 10, UNSIGNED) \
	X(NODES, OPEN_INCIDENTS, "apenetNodeOpenIncidents", 11, GAUGE) \
	X(NODES, IN_LAYOUT, "apenetNodeInLayout", 12, INTEGER)

#define APENET_MIB_INCIDENT_COLUMNS(X) \
	X(INCIDENT, COMPONENT, "apenetIncidentComponent", 2, STRING) \
	X(INCIDENT, NODE, "apenetIncidentNode", 3, STRING) \
	X(INCIDENT, NODE_NAME, "apenetIncidentNodeName", 4, STRING) \
	X(INCIDENT, LINK, "apenetIncidentLink", 5, STRING) \
	X(INCIDENT, FAR_NODE, "apenetIncidentFarNode", 6, STRING) \
	X(INCIDENT, FAR_LINK, "apenetIncidentFarLink", 7, STRING) \
	X(INCIDENT, RULE, "apenetIncidentRule", 8, STRING) \
	X(INCIDENT, OPENED, "apenetIncidentOpened", 9, UNSIGNED) \
	X(INCIDENT, FIRST_FAULT, "apenetIncidentFirstFault", 10, STRING) \
	X(INCIDENT, EVIDENCE, "apenetIncidentEvidence", 11, GAUGE)

#define APENET_MIB_COL_ENUM_(t, c, name, arc, type) APENET_MIB_##t##_##c = arc,
enum apenet_mib_card_col { APENET_MIB_CARD_COLUMNS(APENET_MIB_COL_ENUM_) };
enum apenet_mib_link_col { APENET_MIB_LINK_COLUMNS(APENET_MIB_COL_ENUM_) };
enum apenet_mib_lane_col { APENET_MIB_LANE_COLUMNS(APENET_MIB_COL_ENUM_) };
enum apenet_mib_sensor_col { APENET_MIB_SENSOR_COLUMNS(APENET_MIB_COL_ENUM_) };
enum apenet_mib_ldm_col { APENET_MIB_LDM_COLUMNS(APENET_MIB_COL_ENUM_) };
enum apenet_mib_watchdog_col { APENET_MIB_WATCHDOG_COLUMNS(APENET_MIB_COL_ENUM_) };
enum apenet_mib_nodes_col { APENET_MIB_NODES_COLUMNS(APENET_MIB_COL_ENUM_) };
enum apenet_mib_incident_col { APENET_MIB_INCIDENT_COLUMNS(APENET_MIB_COL_ENUM_) };
enum apenet_mib_cert_col { APENET_MIB_CERT_COLUMNS(APENET_MIB_COL_ENUM_) };
enum apenet_mib_module_col { APENET_MIB_MODULE_COLUMNS(APENET_MIB_COL_ENUM_) };
#undef APENET_MIB_COL_ENUM_
#define APENET_MIB_TABLE_ENUM_(t, name, arc) APENET_MIB_T_##t = arc,
enum apenet_mib_table_arc { APENET_MIB_TABLES(APENET_MIB_TABLE_ENUM_) };
#undef APENET_MIB_TABLE_ENUM_

/* The standard objects every SNMPv2 notification starts with (RFC 3416):
 * sysUpTime.0 and snmpTrapOID.0. */
#define APENET_OID_SYSUPTIME_0 1, 3, 6, 1, 2, 1, 1, 3, 0
#define APENET_OID_SNMPTRAPOID_0 1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0

#endif
