/*
 * Sending a committed batch's SNMPv2c acknowledgements: bytes made from
 * each INFORM (snmp/v2c_ack.c), ACK_BATCH to a sendmmsg, from the listening
 * socket, each to its sender and from the local address its INFORM came to
 * (IP_PKTINFO), as net-snmp's own UDP transport answers.  One system call
 * per 64 acks instead of net-snmp building and sending each: most of what
 * acknowledging cost (docs/supervisor.md, "Load").
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "apenet/log.h"
#include "sup.h"

#define ACK_BATCH 64

size_t sup_ack_send(int sock, struct sup_item *q, size_t n)
{
	struct mmsghdr mm[ACK_BATCH];
	struct iovec iov[ACK_BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} ctl[ACK_BATCH];
	size_t sent = 0, i = 0;
	while (i < n) {
		unsigned k = 0;
		for (; i < n && k < ACK_BATCH; i++) {
			struct sup_item *it = &q[i];
			if (!it->ack)
				continue;
			iov[k].iov_base = it->ack;
			iov[k].iov_len = it->ack_len;
			memset(&mm[k], 0, sizeof(mm[k]));
			mm[k].msg_hdr.msg_name = &it->ack_to;
			mm[k].msg_hdr.msg_namelen = sizeof(it->ack_to);
			mm[k].msg_hdr.msg_iov = &iov[k];
			mm[k].msg_hdr.msg_iovlen = 1;
			if (it->ack_from.s_addr != htonl(INADDR_ANY)) {
				memset(&ctl[k], 0, sizeof(ctl[k]));
				mm[k].msg_hdr.msg_control = ctl[k].buf;
				mm[k].msg_hdr.msg_controllen = sizeof(ctl[k].buf);
				struct cmsghdr *c = CMSG_FIRSTHDR(&mm[k].msg_hdr);
				c->cmsg_level = SOL_IP;
				c->cmsg_type = IP_PKTINFO;
				c->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
				struct in_pktinfo pi = { 0 };
				pi.ipi_spec_dst = it->ack_from;
				memcpy(CMSG_DATA(c), &pi, sizeof(pi));
			}
			k++;
		}
		for (unsigned off = 0; off < k;) {
			int r = sendmmsg(sock, mm + off, k - off, 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				/* a full socket buffer or a vanished route: the agent
				 * sends the INFORM again and gets its ack then */
				apenet_log(APENET_LOG_WARN, "acknowledgements: %u not sent: %s", k - off,
					   r < 0 ? strerror(errno) : "none taken");
				break;
			}
			off += (unsigned)r;
			sent += (size_t)r;
		}
	}
	return sent;
}
