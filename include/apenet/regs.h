/*
 * apenet-diag: the register map of the APEnet+ family BAR0.
 *
 * This header is the single source of truth for every offset, field, access
 * class and unit the toolkit and the emulator use, and for the per-variant
 * profiles (link names, lanes, rates, PMA ranges, PCIe).  docs/regmap.md is
 * generated from it (build/bin/apenet-regmap-doc); a test fails when the two
 * drift apart.
 *
 * The published papers give no register offsets: this layout is a DESIGN
 * choice of apenet-diag (see docs/design.md).  Its rules:
 *  - BAR0 is APENET_BAR_SIZE bytes of 32-bit little-endian registers.
 *  - 64-bit values (counters, timestamps) sit 8-byte aligned and are read with
 *    one 64-bit access (a single PCIe read TLP, as readq()).
 *  - The firmware publishes everything under a generation counter
 *    (APENET_REG_GEN, a seqlock: odd while it updates), so a reader can take a
 *    consistent snapshot without stopping the card.
 *  - Nothing is write-1-to-clear: clearing and other side effects go through
 *    the command region, which the firmware (or the emulator's firmware model)
 *    executes at its next tick and acknowledges.
 *  - Per-link blocks start at APENET_LINK_BASE with APENET_LINK_STRIDE; each
 *    holds APENET_MAX_LANES lane blocks.  Module EEPROM windows start at
 *    APENET_EE_BASE, one per port, mirroring the module pages in the layout
 *    `ethtool -m DEV raw on` uses (lower page, upper pages 00h..03h).
 */
#ifndef APENET_REGS_H
#define APENET_REGS_H

#include <stdint.h>

/* ---- PCI identity (DESIGN: Altera's vendor ID, our own device IDs) ---- */
#define APENET_PCI_VENDOR 0x1172u /* Altera Corporation */
#define APENET_PCI_CLASS 0x1200u  /* Processing accelerator */

#define APENET_BAR_SIZE 0x8000u
#define APENET_MAGIC 0x41504e54u /* "APNT" */
#define APENET_ALL_ONES 0xffffffffu

#define APENET_MAX_LINKS 8
#define APENET_MAX_LANES 4
#define APENET_NUM_VC 2

/* Access classes of a register. */
enum apenet_access {
	APENET_RO,  /* read-only; the firmware owns it */
	APENET_RW,  /* host writes, firmware reads (settings) */
	APENET_W1C, /* write 1 to clear; unused by this map (see header comment) */
	APENET_CMD, /* command: writing it asks the firmware to act at its next tick */
};

/*
 * Register lists.  X(NAME, OFFSET, BITS, ACCESS, UNIT, DESCRIPTION)
 * BITS is 32 or 64.  OFFSET is from BAR0 for the global block, from the link
 * block for link registers, from the lane block for lane registers, and from
 * the EEPROM window for EEPROM registers.
 */
#define APENET_GLOBAL_REGS(X) \
	X(ID_MAGIC,        0x000, 32, RO,  "-",      "Constant 0x41504e54 (\"APNT\"): this BAR belongs to an APEnet card") \
	X(ID_VARIANT,      0x004, 32, RO,  "enum",   "Board variant (enum apenet_variant)") \
	X(ID_FW_VERSION,   0x008, 32, RO,  "ver",    "Firmware version: major[23:16] minor[15:8] patch[7:0]") \
	X(ID_BUILD,        0x00c, 32, RO,  "-",      "Firmware build id") \
	X(ID_CAPS,         0x010, 32, RO,  "bits",   "Capabilities (APENET_CAP_*)") \
	X(BER_ACCEL,       0x014, 32, RO,  "x",      "PRBS counters advance this many times faster than wall time (1 = real time; >1 only in an accelerated emulation)") \
	X(NODE_COORD,      0x020, 32, RO,  "coord",  "This node's torus coordinates") \
	X(TORUS_DIMS,      0x024, 32, RO,  "coord",  "Torus dimensions") \
	X(LINK_CONFIG,     0x028, 32, RO,  "-",      "Number of links and lanes per link") \
	X(TS_FREQ_HZ,      0x03c, 32, RO,  "Hz",     "Frequency of the TIMESTAMP counter") \
	X(GEN,             0x040, 32, RO,  "count",  "Snapshot generation: odd while the firmware updates registers") \
	X(TIMESTAMP,       0x048, 64, RO,  "ticks",  "Free-running timestamp at TS_FREQ_HZ; every rate is computed from it") \
	X(CNT_CLEAR_TS,    0x050, 64, RO,  "ticks",  "TIMESTAMP when counters were last cleared") \
	X(UPTIME_TS,       0x058, 64, RO,  "ticks",  "TIMESTAMP at the last firmware reset") \
	X(SENS_FPGA_TEMP,  0x100, 32, RO,  "mC",    "FPGA die temperature (signed)") \
	X(SENS_BOARD_TEMP, 0x104, 32, RO,  "mC",    "Board temperature (signed)") \
	X(SENS_VCORE,      0x108, 32, RO,  "mV",     "FPGA core supply") \
	X(SENS_VXCVR,      0x10c, 32, RO,  "mV",     "Transceiver supply") \
	X(SENS_VIO,        0x110, 32, RO,  "mV",     "I/O supply (2.5 V)") \
	X(SENS_V12,        0x114, 32, RO,  "mV",     "12 V input rail") \
	X(SENS_ICORE,      0x118, 32, RO,  "mA",     "FPGA core current") \
	X(SENS_I12,        0x11c, 32, RO,  "mA",     "12 V input current") \
	X(SENS_VCORE_NOM,  0x120, 32, RO,  "mV",     "Nominal core supply (for droop in percent)") \
	X(THR_TEMP_SICK,   0x140, 32, RW,  "mC",    "FPGA temperature above which the LDM temperature field says sick") \
	X(THR_TEMP_BROKEN, 0x144, 32, RW,  "mC",    "FPGA temperature above which it says broken") \
	X(THR_VDROOP_SICK, 0x148, 32, RW,  "0.1%",   "Core supply droop that makes the LDM voltage field sick") \
	X(THR_VDROOP_BROKEN,0x14c,32, RW,  "0.1%",   "Core supply droop that makes it broken") \
	X(THR_ICORE_SICK,  0x150, 32, RW,  "mA",     "Core current above which the LDM current field says sick") \
	X(WD_HOST_HB,      0x200, 32, RW,  "count",  "Host heartbeat: the host increments it every period") \
	X(WD_DNP_HB,       0x204, 32, RO,  "count",  "DNP heartbeat: the DNP increments it every period") \
	X(WD_PERIOD_US,    0x208, 32, RW,  "us",     "Heartbeat period (default 100000)") \
	X(WD_TIMEOUT_BEATS,0x20c, 32, RW,  "beats",  "Missed host beats before the host is declared expired (default 3)") \
	X(WD_CTRL,         0x210, 32, RW,  "bits",   "Watchdog control") \
	X(WD_STATUS,       0x214, 32, RO,  "bits",   "Watchdog status") \
	X(WD_EXPIRE_COUNT, 0x218, 32, RO,  "count",  "Times the host was declared expired") \
	X(WD_HOST_HB_TS,   0x220, 64, RO,  "ticks",  "TIMESTAMP when the DNP last saw WD_HOST_HB change") \
	X(LDM_OWN,         0x300, 32, RO,  "ldm",    "The LDM word this DNP sends to its neighbours") \
	X(LDM_HOST,        0x304, 32, RW,  "ldm",    "Fields the host contributes (service network, memory, peripheral, host-expired bit); the DNP merges them") \
	X(LDM_TX_COUNT,    0x308, 32, RO,  "count",  "LDM words sent (one per credit period batch)") \
	X(CMD_CODE,        0x400, 32, RW,  "enum",   "Command to run (APENET_CMD_*)") \
	X(CMD_ARG,         0x404, 32, RW,  "-",      "Command argument") \
	X(CMD_SEQ,         0x408, 32, CMD, "count",  "Doorbell: the host writes a new sequence number after CODE and ARG") \
	X(CMD_DONE_SEQ,    0x40c, 32, RO,  "count",  "Sequence number of the last command the firmware finished") \
	X(CMD_RESULT,      0x410, 32, RO,  "enum",   "Result of the last command (0 ok, APENET_CMDERR_*)") \
	X(RMT_ADDR,        0x500, 32, RW,  "offset", "Remote window: the partner's BAR0 offset to read or write (in the partner's own map)") \
	X(RMT_WDATA,       0x504, 32, RW,  "-",      "Remote window: the value a write request writes") \
	X(RMT_CTRL,        0x508, 32, CMD, "bits",   "Remote window doorbell: OP, LINK and a new SEQ, written after RMT_ADDR and RMT_WDATA") \
	X(RMT_STATUS,      0x50c, 32, RO,  "bits",   "Remote window: SEQ and result of the last request finished; BUSY while one is in flight") \
	X(RMT_RDATA,       0x510, 64, RO,  "-",      "Remote window: the value the last request read (32-bit registers zero-extended; 0 after a write or an error)") \
	X(RMT_RTT,         0x518, 32, RO,  "ticks",  "Remote window: round trip of the last answered request, request sent to answer received") \
	X(RMT_SERVED,      0x51c, 32, RO,  "count",  "Remote requests this DNP answered for its link partners (reads, writes and refusals)")

/* Per link, at APENET_LINK_BASE + link * APENET_LINK_STRIDE. */
#define APENET_LINK_REGS(X) \
	X(LINK_STATE,      0x000, 32, RO,  "bits",   "Link state, bring-up phase and lanes up") \
	X(LINK_PARTNER,    0x004, 32, RO,  "coord",  "Partner node and port, learned from its ALIGN OK words") \
	X(LINK_CTRL,       0x008, 32, RW,  "bits",   "Link control (enable)") \
	X(LINK_LANE_MBPS,  0x00c, 32, RO,  "Mbps",   "Lane line rate") \
	X(LINK_T_RED,      0x010, 32, RW,  "words",  "Red threshold of the remote RX FIFO (128-bit words)") \
	X(LINK_T_YEL,      0x014, 32, RW,  "words",  "Yellow threshold (128-bit words)") \
	X(LINK_CREDIT_PERIOD,0x018,32,RW,  "cycles", "Credit period C") \
	X(LINK_FIFO_DEPTH, 0x01c, 32, RO,  "words",  "RX FIFO depth T_RED is measured against (128-bit words; 1024 = the 16 KB of SPEC §2)") \
	X(LINK_FIFO_LVL0,  0x020, 32, RO,  "words",  "RX FIFO level, virtual channel 0") \
	X(LINK_FIFO_LVL1,  0x024, 32, RO,  "words",  "RX FIFO level, virtual channel 1") \
	X(LINK_FIFO_HWM0,  0x028, 32, RO,  "words",  "RX FIFO high-water mark since clear, VC 0") \
	X(LINK_FIFO_HWM1,  0x02c, 32, RO,  "words",  "RX FIFO high-water mark since clear, VC 1") \
	X(LINK_TX_PKTS,    0x040, 64, RO,  "pkts",   "Packets sent") \
	X(LINK_TX_BYTES,   0x048, 64, RO,  "bytes",  "Payload bytes sent") \
	X(LINK_RX_PKTS,    0x050, 64, RO,  "pkts",   "Packets received") \
	X(LINK_RX_BYTES,   0x058, 64, RO,  "bytes",  "Payload bytes received") \
	X(LINK_HDR_CRC_ERR,0x060, 64, RO,  "pkts",   "Header CRC errors (retransmitted by the link)") \
	X(LINK_FTR_CRC_ERR,0x068, 64, RO,  "pkts",   "Footer CRC errors (retransmitted by the link)") \
	X(LINK_RETRANS,    0x070, 64, RO,  "pkts",   "Link-level retransmissions") \
	X(LINK_PAYLOAD_ERR,0x078, 64, RO,  "pkts",   "Payload CRC errors, flagged in the footer, left to software") \
	X(LINK_CREDITS_TX, 0x080, 64, RO,  "words",  "Credit words sent") \
	X(LINK_CREDITS_RX, 0x088, 64, RO,  "words",  "Credit words received") \
	X(LINK_DOWN_EVENTS,0x090, 64, RO,  "events", "Transitions from up to down") \
	X(LINK_ALIGN_RESTARTS,0x098,64,RO, "events", "RESTART ALIGN events summed over lanes") \
	X(LINK_STALL_CYCLES,0x0a0,64, RO,  "cycles", "Cycles the transmitter waited on T_RED") \
	X(LINK_LDM_RX,     0x0b0, 32, RO,  "ldm",    "Last LDM word received from the partner") \
	X(LINK_LDM_RX_COUNT,0x0b4,32, RO,  "count",  "LDM words received") \
	X(LINK_LDM_RX_TS,  0x0b8, 64, RO,  "ticks",  "TIMESTAMP when LINK_LDM_RX arrived (age = TIMESTAMP - this)") \
	X(LINK_UP_TS,      0x0c0, 64, RO,  "ticks",  "TIMESTAMP when the link last came up") \
	X(LINK_LATENCY_PS, 0x0c8, 32, RO,  "ps",     "One-way link latency measured at the last alignment (TX word to RX word out of deskew); 0 while not up")

/* Per lane, at link block + APENET_LANE_BASE + lane * APENET_LANE_STRIDE. */
#define APENET_LANE_REGS(X) \
	X(LANE_STATE,      0x000, 32, RO,  "bits",   "Lane bring-up phase and signal") \
	X(LANE_ALIGN_RESTARTS,0x004,32,RO, "events", "RESTART ALIGN events on this lane") \
	X(LANE_CODE_VIOL,  0x008, 64, RO,  "symbols","8b/10b code violations") \
	X(LANE_DISP_ERR,   0x010, 64, RO,  "symbols","8b/10b running-disparity errors") \
	X(LANE_PMA_VOD,    0x018, 32, RW,  "step",   "TX output swing (VOD) setting") \
	X(LANE_PMA_PRE,    0x01c, 32, RW,  "step",   "TX pre-emphasis pre-tap") \
	X(LANE_PMA_POST1,  0x020, 32, RW,  "step",   "TX pre-emphasis first post-tap") \
	X(LANE_PMA_POST2,  0x024, 32, RW,  "step",   "TX pre-emphasis second post-tap") \
	X(LANE_PMA_RXEQ,   0x028, 32, RW,  "step",   "RX equalization") \
	X(LANE_PMA_DCGAIN, 0x02c, 32, RW,  "step",   "RX DC gain") \
	X(LANE_PRBS_CTRL,  0x030, 32, RW,  "bits",   "PRBS generator/checker control") \
	X(LANE_PRBS_STATUS,0x034, 32, RO,  "bits",   "PRBS checker status") \
	X(LANE_PRBS_BITS,  0x038, 64, RO,  "bits",   "Bits checked since the checker started") \
	X(LANE_PRBS_ERRS,  0x040, 64, RO,  "bits",   "Bit errors since the checker started") \
	X(LANE_PRBS_START_TS,0x048,64,RO,  "ticks",  "TIMESTAMP when the checker (re)started") \
	X(LANE_PRBS_RXWORD,0x050, 32, RO,  "-",      "Last 32-bit parallel word the checker received") \
	X(LANE_PRBS_ERRWORD,0x054,32, RO,  "-",      "XOR of that word with the expected one (its bit errors)") \
	X(LANE_PRBS_RUN_MS,0x058, 32, RW,  "ms",     "Run time: the firmware clears PRBS_CTRL.ENABLE this long after a run starts; 0 runs until disabled")

/* Per module port, at APENET_EE_BASE + port * APENET_EE_STRIDE. */
#define APENET_EE_REGS(X) \
	X(EE_STATUS,       0x300, 32, RO,  "bits",   "Module presence and mirror state") \
	X(EE_GEN,          0x304, 32, RO,  "count",  "Mirror refreshes (the firmware re-reads the module over I2C)") \
	X(EE_TS,           0x308, 64, RO,  "ticks",  "TIMESTAMP of the last mirror refresh")

#define APENET_LINK_BASE 0x1000u
#define APENET_LINK_STRIDE 0x400u
#define APENET_LANE_BASE 0x100u
#define APENET_LANE_STRIDE 0x080u
#define APENET_EE_BASE 0x4000u
#define APENET_EE_STRIDE 0x400u
/* 640 bytes.  QSFP (SFF-8636): lower page, upper pages 00h, 01h, 02h, 03h.
 * SFP (SFF-8472): A0h in bytes 0-255, A2h in 256-511, the rest zero. */
#define APENET_EE_DATA 0x000u
#define APENET_EE_DATA_LEN 640u

/* Offsets as enum constants: APENET_REG_x, APENET_LINK_x, APENET_LANE_x, APENET_EE_x. */
#define APENET_X_ENUM_G(n, o, b, a, u, d) APENET_REG_##n = (o),
#define APENET_X_ENUM(n, o, b, a, u, d) APENET_##n = (o),
enum apenet_global_reg { APENET_GLOBAL_REGS(APENET_X_ENUM_G) };
enum apenet_link_reg { APENET_LINK_REGS(APENET_X_ENUM) };
enum apenet_lane_reg { APENET_LANE_REGS(APENET_X_ENUM) };
enum apenet_ee_reg { APENET_EE_REGS(APENET_X_ENUM) };

static inline uint32_t apenet_link_off(unsigned link, unsigned reg)
{
	return APENET_LINK_BASE + link * APENET_LINK_STRIDE + reg;
}
static inline uint32_t apenet_lane_off(unsigned link, unsigned lane, unsigned reg)
{
	return APENET_LINK_BASE + link * APENET_LINK_STRIDE + APENET_LANE_BASE +
	       lane * APENET_LANE_STRIDE + reg;
}
static inline uint32_t apenet_ee_off(unsigned port, unsigned reg)
{
	return APENET_EE_BASE + port * APENET_EE_STRIDE + reg;
}

/*
 * Fields.  F(REGISTER, FIELD, LSB, WIDTH, DESCRIPTION)
 * Generated: APENET_F_<REG>_<FIELD>_LSB and _WIDTH; use APENET_GET/APENET_SET.
 */
#define APENET_FIELDS(F) \
	F(ID_FW_VERSION, MAJOR, 16, 8, "Major") \
	F(ID_FW_VERSION, MINOR, 8, 8, "Minor") \
	F(ID_FW_VERSION, PATCH, 0, 8, "Patch") \
	F(ID_CAPS, PRBS, 0, 1, "PRBS generators and checkers") \
	F(ID_CAPS, LDM, 1, 1, "LDM diagnostic messages") \
	F(ID_CAPS, WATCHDOG, 2, 1, "Mutual watchdog") \
	F(ID_CAPS, HWTLB, 3, 1, "Hardware TLB") \
	F(ID_CAPS, RMT, 4, 1, "Remote-register window (RMT_*): the partner's PRBS registers through the link") \
	F(ID_CAPS, LATENCY, 5, 1, "Link latency measured at alignment (LINK_LATENCY_PS)") \
	F(ID_CAPS, EMULATED, 31, 1, "The board is an emulation (apenet-sim)") \
	F(NODE_COORD, X, 0, 8, "X coordinate") \
	F(NODE_COORD, Y, 8, 8, "Y coordinate") \
	F(NODE_COORD, Z, 16, 8, "Z coordinate") \
	F(TORUS_DIMS, X, 0, 8, "X size") \
	F(TORUS_DIMS, Y, 8, 8, "Y size") \
	F(TORUS_DIMS, Z, 16, 8, "Z size") \
	F(LINK_CONFIG, LINKS, 0, 8, "Number of links") \
	F(LINK_CONFIG, LANES, 8, 8, "Lanes per link (maximum over links)") \
	F(WD_CTRL, ENABLE, 0, 1, "The DNP watches the host heartbeat") \
	F(WD_STATUS, HOST_EXPIRED, 0, 1, "The host missed WD_TIMEOUT_BEATS beats") \
	F(WD_STATUS, ENABLED, 1, 1, "The watchdog is running") \
	F(WD_STATUS, MISSED, 8, 8, "Whole watchdog periods since the host's last beat (255 at most)") \
	F(RMT_CTRL, OP, 0, 2, "enum apenet_rmt_op: 0 read, 1 write") \
	F(RMT_CTRL, LINK, 8, 4, "Link the request goes out on") \
	F(RMT_CTRL, SEQ, 16, 16, "Request number: a value other than RMT_STATUS.DONE_SEQ rings the doorbell") \
	F(RMT_STATUS, RESULT, 0, 8, "enum apenet_rmt_result of request DONE_SEQ") \
	F(RMT_STATUS, BUSY, 8, 1, "A request is in flight: sent, its answer not yet in") \
	F(RMT_STATUS, DONE_SEQ, 16, 16, "SEQ of the last request finished") \
	F(LINK_STATE, STATE, 0, 3, "enum apenet_link_state") \
	F(LINK_STATE, PHASE, 4, 3, "Lowest bring-up phase over the lanes in use (enum apenet_phase)") \
	F(LINK_STATE, LANES_UP, 8, 4, "Mask of lanes up") \
	F(LINK_STATE, LANES_USED, 12, 4, "Mask of lanes the variant uses on this link") \
	F(LINK_PARTNER, X, 0, 8, "Partner X") \
	F(LINK_PARTNER, Y, 8, 8, "Partner Y") \
	F(LINK_PARTNER, Z, 16, 8, "Partner Z") \
	F(LINK_PARTNER, PORT, 24, 4, "Partner link index") \
	F(LINK_PARTNER, EXTERNAL, 30, 1, "Partner is not a torus node (detector, switch)") \
	F(LINK_PARTNER, VALID, 31, 1, "Partner identity known") \
	F(LINK_CTRL, ENABLE, 0, 1, "Administratively enabled") \
	F(LANE_STATE, PHASE, 0, 3, "enum apenet_phase") \
	F(LANE_STATE, SIGNAL, 4, 1, "Signal detected / CDR locked") \
	F(LANE_PRBS_CTRL, PATTERN, 0, 2, "enum apenet_prbs (7, 15, 23, 31)") \
	F(LANE_PRBS_CTRL, ENABLE, 4, 1, "Run generator and checker (traffic stops on the lane's link)") \
	F(LANE_PRBS_CTRL, CLEAR, 5, 1, "Command: restart the checker's counters at the next tick") \
	F(LANE_PRBS_CTRL, FOLLOW, 6, 1, "End the run when the checker, once locked, sees no pattern for APENET_PRBS_FOLLOW_MS (the partner stopped)") \
	F(LANE_PRBS_CTRL, LANES, 8, 4, "Command: apply PATTERN, ENABLE, CLEAR and FOLLOW to these lanes of the link too, in one write; dropped once done") \
	F(LANE_PRBS_STATUS, LOCKED, 0, 1, "Checker locked to the pattern") \
	F(LANE_PRBS_STATUS, RUNNING, 1, 1, "Checker running") \
	F(LANE_PRBS_STATUS, ENDED, 2, 1, "The firmware ended the last run: PRBS_RUN_MS elapsed, or FOLLOW (0 again when a run starts)") \
	F(LANE_PRBS_STATUS, FOLLOWED, 3, 1, "The last run ended by FOLLOW: the partner stopped sending the pattern") \
	F(LANE_PRBS_STATUS, PATTERN, 8, 2, "Pattern the checker runs") \
	F(EE_STATUS, PRESENT, 0, 1, "A module is plugged") \
	F(EE_STATUS, VALID, 1, 1, "The mirror holds the module's pages") \
	F(EE_STATUS, LAYOUT, 4, 4, "Page layout: 1 SFF-8636 (QSFP), 2 SFF-8472 (SFP) (enum apenet_ee_layout)") \
	F(LDM, SERVICE, 0, 2, "Service network status") \
	F(LDM, MEMORY, 2, 2, "Memory") \
	F(LDM, PERIPHERAL, 4, 2, "Peripheral") \
	F(LDM, CORE, 6, 2, "DNP core") \
	F(LDM, CURRENT, 8, 2, "Current") \
	F(LDM, VOLTAGE, 10, 2, "Voltage") \
	F(LDM, TEMPERATURE, 12, 2, "Temperature") \
	F(LDM, ZMINUS, 14, 2, "Z- link") \
	F(LDM, ZPLUS, 16, 2, "Z+ link") \
	F(LDM, YMINUS, 18, 2, "Y- link") \
	F(LDM, YPLUS, 20, 2, "Y+ link") \
	F(LDM, XMINUS, 22, 2, "X- link") \
	F(LDM, XPLUS, 24, 2, "X+ link") \
	F(LDM, HOST_EXPIRED, 26, 1, "DESIGN extension in a spare bit: the DNP's watchdog declared the host expired") \
	F(LDM, VALID, 31, 1, "The word is valid")

#define APENET_X_FIELD(r, f, lsb, w, d) APENET_F_##r##_##f##_LSB = (lsb), APENET_F_##r##_##f##_WIDTH = (w),
enum apenet_field { APENET_FIELDS(APENET_X_FIELD) };

#define APENET_GET(r, f, v) \
	(((uint32_t)(v) >> APENET_F_##r##_##f##_LSB) & \
	 (uint32_t)((1ull << APENET_F_##r##_##f##_WIDTH) - 1))
#define APENET_SET(r, f, x) \
	(((uint32_t)(x) & (uint32_t)((1ull << APENET_F_##r##_##f##_WIDTH) - 1)) \
	 << APENET_F_##r##_##f##_LSB)

/* ---- Enumerations ---- */
enum apenet_link_state {
	APENET_LINK_DOWN = 0,     /* no signal, or disabled */
	APENET_LINK_TRAINING = 1, /* bring-up in progress */
	APENET_LINK_UP = 2,       /* all lanes in use are up */
	APENET_LINK_DEGRADED = 3, /* up on fewer lanes than it should */
	APENET_LINK_PRBS = 4,     /* lanes run PRBS test patterns, no traffic */
};

/* Bring-up phases of SPEC §2, in order. */
enum apenet_phase {
	APENET_PHASE_RESET = 0,      /* no signal */
	APENET_PHASE_CHECK_ALIGN = 1,/* sending ALIGN WORD, looking for it */
	APENET_PHASE_ALIGN_OK = 2,   /* ALIGN OK sent, waiting for the partner's */
	APENET_PHASE_DESKEW = 3,     /* K28.3 sent, deskew FIFOs filling */
	APENET_PHASE_UP = 4,
};

enum apenet_prbs { APENET_PRBS7 = 0, APENET_PRBS15 = 1, APENET_PRBS23 = 2, APENET_PRBS31 = 3 };

enum apenet_ee_layout { APENET_EE_NONE = 0, APENET_EE_SFF8636 = 1, APENET_EE_SFF8472 = 2 };

/* The module cage behind a port (struct apenet_link_profile.has_module). */
enum apenet_cage { APENET_CAGE_NONE = 0, APENET_CAGE_QSFP = 1, APENET_CAGE_SFP = 2 };

/* LDM 2-bit field values (SPEC §3); 3 is invalid. */
enum apenet_ldm_status { APENET_LDM_NORMAL = 0, APENET_LDM_SICK = 1, APENET_LDM_BROKEN = 2, APENET_LDM_INVALID = 3 };
/* Bits of LDM_HOST the host may set; the DNP ignores the others. */
#define APENET_LDM_HOST_MASK 0x0400003fu

enum apenet_cmd {
	APENET_CMD_NOP = 0,
	APENET_CMD_CLEAR_COUNTERS = 1, /* ARG: mask of links (all ones: all, and global) */
	APENET_CMD_REALIGN = 2,        /* ARG: link index; restart bring-up on it */
	APENET_CMD_RESET = 3,          /* soft reset of the firmware: links retrain, counters clear */
};
enum apenet_cmd_err { APENET_CMDERR_OK = 0, APENET_CMDERR_BADCODE = 1, APENET_CMDERR_BADARG = 2 };

/*
 * The remote-register window (RMT_*, docs/design.md "The remote-register
 * window").  The host writes RMT_ADDR (and RMT_WDATA), then RMT_CTRL with
 * OP, LINK and a new SEQ.  The firmware sends the request to the partner DNP
 * on that link as a LOFAMO packet; the partner's firmware checks the address
 * against its window (apenet_rmt_allowed), reads or writes its own register
 * and answers.  RMT_STATUS then shows DONE_SEQ = SEQ with the result, and
 * RMT_RDATA the value read.  One request at a time; the host side holds the
 * card's command lock around it (include/apenet/remote.h).
 */
enum apenet_rmt_op { APENET_RMT_READ = 0, APENET_RMT_WRITE = 1 };
/* X(NAME, VALUE, DESCRIPTION): APENET_RMT_<NAME> */
#define APENET_RMT_RESULTS(X) \
	X(OK,         0, "done: RMT_RDATA holds the value read, or the write was applied") \
	X(LINK_DOWN,  1, "not sent: the link is down or training") \
	X(LINK_PRBS,  2, "not sent: a lane of the link runs PRBS at this end or the partner's, so the link carries no packets") \
	X(NO_PARTNER, 3, "not sent: no DNP at the far end (no cable, or an external device: detector, switch)") \
	X(NO_ANSWER,  4, "sent, no answer within APENET_RMT_ANSWER_US: the partner's DNP is hung or its firmware has no window") \
	X(DENIED,     5, "the partner refused: the address is not in its window, or not writable") \
	X(BADREQ,     6, "not sent: OP or LINK out of range")
#define APENET_X_RMT_ENUM(n, v, d) APENET_RMT_##n = (v),
enum apenet_rmt_result { APENET_RMT_RESULTS(APENET_X_RMT_ENUM) };
/* How long the firmware waits for the partner's answer before NO_ANSWER.
 * A round trip takes a few microseconds (docs/design.md). */
#define APENET_RMT_ANSWER_US 1000u
/* PMA settings written through the window are provisional: the partner
 * keeps the lane's last good setting (one the link was up with, at full
 * width, for this long without a PRBS run) and puts it back when the lane
 * or the link has been down or degraded this long, outside PRBS runs,
 * since the last write: a bad setting must not cut the link the window
 * rides on for good. */
#define APENET_RMT_PMA_REVERT_MS 1000u
/* LANE_PRBS_CTRL.FOLLOW: how long a locked checker goes without the pattern
 * before the firmware ends the run (the partner stopped its generator). */
#define APENET_PRBS_FOLLOW_MS 10u

/* ---- Board variants and their profiles (SPEC §1) ---- */
enum apenet_variant {
	APENET_V_NONE = 0,
	APENET_V_APENETP = 1,  /* APEnet+ (v4), Stratix IV */
	APENET_V_V5 = 2,       /* APEnet v5, Stratix V */
	APENET_V_NANET1 = 3,   /* NaNet-1 */
	APENET_V_NANET_KM3 = 4,/* NaNet for KM3NeT-IT */
	APENET_V_NANET10 = 5,  /* NaNet-10 */
	APENET_V_COUNT
};

/* Torus direction a link cables to; APENET_DIR_EXT: to something else. */
enum apenet_dir {
	APENET_DIR_XP, APENET_DIR_XM, APENET_DIR_YP, APENET_DIR_YM, APENET_DIR_ZP, APENET_DIR_ZM,
	APENET_DIR_X, APENET_DIR_Y, APENET_DIR_Z, /* one channel per dimension, paired nodes (v5) */
	APENET_DIR_EXT,
};

enum apenet_encoding { APENET_ENC_8B10B, APENET_ENC_64B66B };

struct apenet_pma_range {
	uint8_t vod, pre, post1, post2, rxeq, dcgain; /* maxima; minima are 0 */
};

struct apenet_link_profile {
	const char *name;
	enum apenet_dir dir;
	uint8_t lanes;
	uint16_t lane_mbps;     /* deployed rate */
	uint16_t lane_mbps_max; /* the transceiver's maximum */
	enum apenet_encoding enc;
	uint8_t has_module;     /* enum apenet_cage: 0 none, QSFP+ (SFF-8636) or SFP+ (SFF-8472) */
};

struct apenet_profile {
	enum apenet_variant id;
	const char *name;   /* short name used on command lines */
	const char *title;  /* full name */
	const char *fpga;
	uint16_t pci_device;
	uint8_t pcie_gen, pcie_width;
	uint32_t fw_version;
	uint8_t nlinks;
	struct apenet_link_profile links[APENET_MAX_LINKS];
	struct apenet_pma_range pma;
	struct apenet_pma_range pma_default;
};

/* The node a link going in direction d from node me faces in a torus of
 * dims: 0 with far[], the direction the far link faces (*back), the
 * dimension (*dim) and whether the cable closes that ring (*wrap); -1 for an
 * external channel, or a paired channel (one per dimension, nodes 2k and
 * 2k+1: v5) without a partner.  (collectors/profile.c) */
int apenet_torus_neighbour(const unsigned dims[3], const unsigned me[3], enum apenet_dir d, unsigned far[3],
			   enum apenet_dir *back, int *dim, int *wrap);

/* Defined in collectors/profile.c from the table there (variant data only). */
const struct apenet_profile *apenet_profile(enum apenet_variant v);
const struct apenet_profile *apenet_profile_by_name(const char *name);
const struct apenet_profile *apenet_profile_by_device(uint16_t pci_device);
/* The index of the variant's link going in direction d, or -1. */
int apenet_profile_link_dir(const struct apenet_profile *p, enum apenet_dir d);

/* Descriptor tables for dumps and docs (collectors/regs.c). */
struct apenet_regdesc {
	const char *name;
	uint32_t off;
	uint8_t bits;
	enum apenet_access access;
	const char *unit;
	const char *desc;
};
struct apenet_fielddesc {
	const char *reg;
	const char *name;
	uint8_t lsb, width;
	const char *desc;
};
enum apenet_block { APENET_BLK_GLOBAL, APENET_BLK_LINK, APENET_BLK_LANE, APENET_BLK_EE, APENET_BLK_COUNT };
const struct apenet_regdesc *apenet_regdescs(enum apenet_block b, unsigned *n);
const struct apenet_fielddesc *apenet_fielddescs(unsigned *n);
const char *apenet_access_name(enum apenet_access a);
const char *apenet_phase_name(unsigned phase);
const char *apenet_link_state_name(unsigned state);
/* "OK", "LINK_DOWN", ...; "invalid" for an unknown value. */
const char *apenet_rmt_result_name(unsigned result);
const char *apenet_rmt_result_desc(unsigned result);

/*
 * The remote window's policy, applied by the ANSWERING DNP: may its partner
 * on link `link` read (write 0) or write (write 1) the register at BAR0
 * offset off of a board of profile p?  Readable: the identity registers
 * (ID_*, BER_ACCEL, NODE_COORD, TORUS_DIMS, LINK_CONFIG, TS_FREQ_HZ,
 * TIMESTAMP) and, in the lane blocks of that link only, the PRBS and PMA
 * registers.  Writable: LANE_PRBS_CTRL and LANE_PRBS_RUN_MS of those lanes.
 * off must be a register's own offset (not inside a 64-bit one).
 */
int apenet_rmt_allowed(const struct apenet_profile *p, unsigned link, uint32_t off, int write);

/* Registers added to the map after snapshot files were first written: a
 * file without them loads them as 0, which is what a firmware without them
 * shows.  1 for such a name. */
int apenet_reg_added_later(const char *name);

#endif
