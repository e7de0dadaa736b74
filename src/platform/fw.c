/* SPDX-License-Identifier: MIT */
/*
 * A message channel to the system controller firmware a device tree names
 * (TI-SCI: `ti,sci` = a "ti,k2g-sci" or "ti,am654-sci" node). On hardware
 * user space has none: Linux talks to the DM firmware through its ti_sci
 * driver over a mailbox (drivers/firmware/ti_sci.c ti_sci_do_xfer()), and
 * no uapi reaches it. With models, the world's DM firmware model answers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt/dt.h"
#include "hw/tisci.h"
#include "platform/platform.h"
#include "util/util.h"

struct ofl_fw {
	const struct ofl_platform *p;
	int node;      /* the system controller's node */
	uint8_t host;  /* its ti,host-id: who we are to the firmware (0 when absent) */
	atomic_uint next_seq;          /* where the search for a free seq starts */
	atomic_uint in_flight[256 / 32]; /* bit seq: a message with that seq awaits its response */
	char name[OFL_DT_PATH_LEN];
};

int ofl_fw_open(const struct ofl_platform *p, int sci_node, struct ofl_fw **out, char *why, size_t wl)
{
	char path[OFL_DT_PATH_LEN];
	uint32_t host = 0;

	*out = NULL;
	if (p->fdt && sci_node >= 0)
		ofl_dt_path(p->fdt, sci_node, path, sizeof(path));
	else
		ofl_strlcpy(path, "the system controller", sizeof(path));
	if (!p->world) {
		snprintf(why, wl, "no firmware channel to %s: user space has no TI-SCI transport (Linux talks "
			 "to the DM firmware through its ti_sci driver over a mailbox, drivers/firmware/"
			 "ti_sci.c, with no uapi)", path);
		return -ENOTSUP;
	}
	struct ofl_fw *fw = calloc(1, sizeof(*fw));
	if (!fw) {
		snprintf(why, wl, "out of memory for a firmware channel");
		return -ENOMEM;
	}
	if (p->fdt && sci_node >= 0)
		ofl_dt_prop_u32(p->fdt, sci_node, "ti,host-id", &host);
	fw->p = p;
	fw->node = sci_node;
	fw->host = (uint8_t)host;
	ofl_strlcpy(fw->name, path, sizeof(fw->name));
	*out = fw;
	return 0;
}

/*
 * A seq no other message in flight on this channel has, marked in flight, or
 * -EBUSY. Messages are sent from several threads at once (each queue opens
 * its own channels), and the response to a request is the one that carries
 * its seq: Linux ti_sci takes a free bit of its xfer_alloc_table as the seq
 * (ti_sci_get_one_xfer()) and finds the request by it (ti_sci_rx_callback()).
 */
static int seq_take(struct ofl_fw *fw)
{
	for (unsigned tries = 0; tries < 256; tries++) {
		unsigned seq = atomic_fetch_add(&fw->next_seq, 1) & 0xFF;
		if (ofl_bitmap_claim(fw->in_flight, seq))
			return (int)seq;
	}
	return -EBUSY;
}

static void seq_give(struct ofl_fw *fw, unsigned seq)
{
	ofl_bitmap_release(fw->in_flight, seq);
}

int ofl_fw_xfer(struct ofl_fw *fw, uint8_t *msg, size_t req_len, size_t resp_cap, char *why, size_t wl)
{
	if (!fw || req_len < TISCI_HDR_SIZE || resp_cap < TISCI_HDR_SIZE) {
		snprintf(why, wl, "a TI-SCI message needs its %u-byte header", TISCI_HDR_SIZE);
		return -EINVAL;
	}
	uint16_t type = tisci_get16(msg, TISCI_HDR_TYPE);
	int seq = seq_take(fw);
	if (seq < 0) {
		snprintf(why, wl, "message 0x%04x to %s: all 256 sequence numbers are in flight", type, fw->name);
		return -EBUSY;
	}
	tisci_put8(msg, TISCI_HDR_HOST, fw->host);
	tisci_put8(msg, TISCI_HDR_SEQ, (uint8_t)seq);
	char w[OFL_REASON_LEN] = "";
	int r = fw->p->sim->fw_xfer(fw->p->world, msg, req_len, resp_cap, w, sizeof(w));
	seq_give(fw, (unsigned)seq);
	if (r < 0) {
		snprintf(why, wl, "message 0x%04x to %s: %s", type, fw->name, w);
		return r;
	}
	/* Linux ti_sci: a response without the ACK flag fails the call with -ENODEV */
	if (!(tisci_get32(msg, TISCI_HDR_FLAGS) & TISCI_FLAG_RESP_GENERIC_ACK)) {
		snprintf(why, wl, "%s answered message 0x%04x with a NACK%s%s", fw->name, type, w[0] ? ": " : "", w);
		return -ENODEV;
	}
	return 0;
}

void ofl_fw_close(struct ofl_fw *fw)
{
	free(fw);
}
