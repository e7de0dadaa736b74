/* SPDX-License-Identifier: MIT */
/*
 * The stand-in itself, driven with raw ioctls, against the facts of
 * Linux drivers/spi/spidev.c and spi.c: the other SPI suites are only
 * as good as its fidelity.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "spitest.h"

static struct fake_spi *d;
static int fd;

static void setup(void)
{
	struct fake_spi_cfg c;

	fake_spi_cfg_default(&c);
	c.dma_minalign = 128;
	c.ctlr_mode_bits = FK_CPHA | FK_CPOL | FK_LSB_FIRST; /* spi-fsl-dspi's */
	c.gpio_cs = true;
	d = fake_spi_add("/dev/spidev3.1", &c);
	fd = open("/dev/spidev3.1", O_RDWR);
	ck_assert_int_ge(fd, 0);
}

static void teardown(void)
{
	close(fd);
	fake_spi_reset();
}

static int err_of(int r)
{
	return r < 0 ? errno : 0;
}

START_TEST(request_decoding)
{
	uint8_t b8 = 0;
	struct spi_ioc_transfer t[2];

	memset(t, 0, sizeof(t));
	/* Wrong magic, unknown number, read direction on a message: ENOTTY. */
	ck_assert_int_eq(err_of(ioctl(fd, _IOR('j', 1, uint8_t), &b8)), ENOTTY);
	ck_assert_int_eq(err_of(ioctl(fd, _IOR(SPI_IOC_MAGIC, 9, uint8_t), &b8)), ENOTTY);
	ck_assert_int_eq(err_of(ioctl(fd, _IOR(SPI_IOC_MAGIC, 0, char[32]), t)), ENOTTY);
	/* A size that is not a multiple of 32 bytes: EINVAL. */
	ck_assert_int_eq(err_of(ioctl(fd, _IOW(SPI_IOC_MAGIC, 0, char[33]), t)), EINVAL);
	/* MESSAGE(0) and MESSAGE(512) (size field overflow -> 0) do nothing and return 0. */
	ck_assert_int_eq(ioctl(fd, SPI_IOC_MESSAGE(0), t), 0);
	ck_assert_uint_eq((unsigned)SPI_IOC_MESSAGE(512), 0x40006b00u);
	ck_assert_int_eq(ioctl(fd, SPI_IOC_MESSAGE(512), t), 0);
	ck_assert_uint_eq((unsigned)SPI_IOC_MESSAGE(511), 0x7fe06b00u);
	ck_assert_uint_eq(d->message_calls, 0);
}
END_TEST

START_TEST(setup_requests)
{
	uint32_t m32;
	uint8_t m8;

	/* Bits outside spidev's mask (CS_WORD 0x1000, MOSI_IDLE_HIGH 0x40000): EINVAL. */
	m32 = 0x1000;
	ck_assert_int_eq(err_of(ioctl(fd, SPI_IOC_WR_MODE32, &m32)), EINVAL);
	m32 = 0x40000;
	ck_assert_int_eq(err_of(ioctl(fd, SPI_IOC_WR_MODE32, &m32)), EINVAL);
	/* Outside the controller's mode_bits: spi_setup refuses, the mode is restored. */
	m32 = FK_CPOL | FK_LOOP;
	ck_assert_int_eq(err_of(ioctl(fd, SPI_IOC_WR_MODE32, &m32)), EINVAL);
	/* Dual/quad the controller lacks are dropped silently. */
	m32 = FK_CPHA | FK_TX_QUAD;
	ck_assert_int_eq(ioctl(fd, SPI_IOC_WR_MODE32, &m32), 0);
	/* A GPIO chip select forces CS_HIGH inside and hides it from RD_MODE(32). */
	ck_assert_uint_eq(d->mode, FK_CPHA | FK_CS_HIGH);
	ck_assert_int_eq(ioctl(fd, SPI_IOC_RD_MODE32, &m32), 0);
	ck_assert_uint_eq(m32, FK_CPHA);
	ck_assert_int_eq(ioctl(fd, SPI_IOC_RD_MODE, &m8), 0);
	ck_assert_uint_eq(m8, FK_CPHA);
	/* WR_MAX_SPEED_HZ: 0 is EINVAL; otherwise the requested value is stored, the max restored. */
	m32 = 0;
	ck_assert_int_eq(err_of(ioctl(fd, SPI_IOC_WR_MAX_SPEED_HZ, &m32)), EINVAL);
	m32 = 80000000; /* above the controller's 50 MHz: clamped in setup, stored as requested */
	ck_assert_int_eq(ioctl(fd, SPI_IOC_WR_MAX_SPEED_HZ, &m32), 0);
	ck_assert_int_eq(ioctl(fd, SPI_IOC_RD_MAX_SPEED_HZ, &m32), 0);
	ck_assert_uint_eq(m32, 80000000);
	ck_assert_uint_eq(d->sck_hz, 50000000);
	ck_assert_uint_eq(d->max_speed_hz, 10000000);
	/* Word size 0 becomes 8. */
	m8 = 0;
	ck_assert_int_eq(ioctl(fd, SPI_IOC_WR_BITS_PER_WORD, &m8), 0);
	ck_assert_int_eq(ioctl(fd, SPI_IOC_RD_BITS_PER_WORD, &m8), 0);
	ck_assert_uint_eq(m8, 8);
}
END_TEST

START_TEST(message_budget_and_checks)
{
	static uint8_t buf[8192];
	struct spi_ioc_transfer t[33];

	/* arm64 (ARCH_DMA_MINALIGN 128), spidev bufsiz 4096: 32 transfers of <= 128 bytes fit, 33 do not. */
	memset(t, 0, sizeof(t));
	for (int i = 0; i < 33; i++) {
		t[i].tx_buf = (uintptr_t)(buf + i * 128);
		t[i].rx_buf = (uintptr_t)(buf + 4096 + i * 128);
		t[i].len = 100;
	}
	ck_assert_int_eq(ioctl(fd, SPI_IOC_MESSAGE(32), t), 3200);
	ck_assert_int_eq(err_of(ioctl(fd, SPI_IOC_MESSAGE(33), t)), EMSGSIZE);
	/* One 4096-byte full-duplex transfer fits; 4097 does not. */
	memset(t, 0, sizeof(t));
	t[0].tx_buf = (uintptr_t)buf;
	t[0].rx_buf = (uintptr_t)(buf + 4096);
	t[0].len = 4096;
	ck_assert_int_eq(ioctl(fd, SPI_IOC_MESSAGE(1), t), 4096);
	ck_assert_mem_eq(buf + 4096, buf, 4096);
	t[0].len = 4097;
	ck_assert_int_eq(err_of(ioctl(fd, SPI_IOC_MESSAGE(1), t)), EMSGSIZE);
	/* __spi_validate: a partial 16-bit word, tx_nbits 2 without a DUAL mode bit. */
	t[0].len = 3;
	t[0].bits_per_word = 16;
	ck_assert_int_eq(err_of(ioctl(fd, SPI_IOC_MESSAGE(1), t)), EINVAL);
	t[0].len = 4;
	t[0].bits_per_word = 0;
	t[0].tx_nbits = 2;
	ck_assert_int_eq(err_of(ioctl(fd, SPI_IOC_MESSAGE(1), t)), EINVAL);
	/* Without buffers nothing is budgeted; more than INT_MAX in total is EMSGSIZE. */
	memset(t, 0, sizeof(t));
	t[0].len = INT_MAX;
	t[1].len = 1;
	ck_assert_int_eq(err_of(ioctl(fd, SPI_IOC_MESSAGE(2), t)), EMSGSIZE);
}
END_TEST

START_TEST(last_close_resets_speed)
{
	uint32_t hz = 1000000;
	int fd2 = open("/dev/spidev3.1", O_RDWR);

	ck_assert_int_ge(fd2, 0);
	ck_assert_int_eq(ioctl(fd2, SPI_IOC_WR_MAX_SPEED_HZ, &hz), 0);
	close(fd2);
	ck_assert_uint_eq(d->speed_hz, 1000000); /* fd is still open */
	close(fd);
	fd = -1;
	ck_assert_uint_eq(d->speed_hz, 10000000);
	/* Unregistered spidev paths are never passed to the real system. */
	ck_assert_int_eq(err_of(open("/dev/spidev0.9", O_RDWR)), ENOENT);
}
END_TEST

/*
 * The DSPI profile: spi-fsl-dspi's own dspi_transfer_one_message. A
 * transfer of len 0, or of 17..24-bit words (a 3-byte operating word,
 * DIV_ROUND_UP(bpw, 8), that dspi_native_host_to_dev has no case for),
 * leaves a command with no data (DTCP 0) that never completes: -ETIMEDOUT
 * as in its poll mode; 16 and 32 bits go through. SPI_CS_HIGH on a native
 * chip select is accepted and read back (spi_register_controller adds it
 * for use_gpio_descriptors hosts) but the wire stays active-low
 * (dspi_init: MCR.PCSIS for every PCS).
 */
START_TEST(dspi_profile_as_spi_fsl_dspi)
{
	struct fake_spi_cfg c;
	uint8_t tx[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, rx[8];
	struct spi_ioc_transfer t;
	uint32_t m = FK_CS_HIGH | FK_CPOL | FK_CPHA, got = 0;

	fake_spi_cfg_dspi(&c);
	struct fake_spi *n = fake_spi_add("/dev/spidev4.0", &c);
	int f = open("/dev/spidev4.0", O_RDWR);
	ck_assert_int_ge(f, 0);
	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(err_of(ioctl(f, SPI_IOC_MESSAGE(1), &t)), ETIMEDOUT);
	ck_assert_uint_eq(n->stalls, 1);
	t.tx_buf = (uintptr_t)tx;
	t.rx_buf = (uintptr_t)rx;
	t.len = 8;
	for (uint8_t bpw = 17; bpw <= 24; bpw++) {
		t.bits_per_word = bpw;
		ck_assert_int_eq(err_of(ioctl(f, SPI_IOC_MESSAGE(1), &t)), ETIMEDOUT);
	}
	ck_assert_uint_eq(n->stalls, 9);
	ck_assert_ptr_nonnull(strstr(fake_spi_trace(n), " STALL"));
	t.bits_per_word = 16;
	ck_assert_int_eq(ioctl(f, SPI_IOC_MESSAGE(1), &t), 8);
	t.bits_per_word = 32;
	memset(rx, 0, sizeof(rx));
	ck_assert_int_eq(ioctl(f, SPI_IOC_MESSAGE(1), &t), 8);
	ck_assert_mem_eq(rx, tx, 8);
	ck_assert_uint_eq(n->stalls, 9);
	ck_assert_int_eq(ioctl(f, SPI_IOC_WR_MODE32, &m), 0);
	ck_assert_int_eq(ioctl(f, SPI_IOC_RD_MODE32, &got), 0);
	ck_assert_uint_eq(got, m);
	ck_assert(!n->wire_cs_active_high);
	/*
	 * LSB first, 8-bit words (fifo_size 4): 4 bytes (even, <= 8) go as two
	 * 8on16 frames, first byte high, shifted from the LSB: 80 01 C0 03 on
	 * the wire. 9 bytes (odd, > 4): two 8on32 frames (half the FIFO), each
	 * reversed, then 1 byte natively. 3 bytes (odd, <= 4): native, in order.
	 */
	static const uint8_t b4[4] = { 0x01, 0x80, 0x03, 0xC0 }, b9[9] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t r9[9];
	m = FK_LSB_FIRST;
	ck_assert_int_eq(ioctl(f, SPI_IOC_WR_MODE32, &m), 0);
	memset(&t, 0, sizeof(t));
	t.tx_buf = (uintptr_t)b4;
	t.len = 4;
	fake_spi_trace_clear(n);
	ck_assert_int_eq(ioctl(f, SPI_IOC_MESSAGE(1), &t), 4);
	ck_assert_ptr_nonnull(strstr(fake_spi_trace(n), "] 8001c003"));
	t.tx_buf = (uintptr_t)b9;
	t.rx_buf = (uintptr_t)r9;
	t.len = 9;
	fake_spi_trace_clear(n);
	ck_assert_int_eq(ioctl(f, SPI_IOC_MESSAGE(1), &t), 9);
	ck_assert_ptr_nonnull(strstr(fake_spi_trace(n), "] 030201000706050408"));
	ck_assert_mem_eq(r9, b9, 9); /* the loop-back mirrors the packing back */
	t.len = 3;
	fake_spi_trace_clear(n);
	ck_assert_int_eq(ioctl(f, SPI_IOC_MESSAGE(1), &t), 3);
	ck_assert_ptr_nonnull(strstr(fake_spi_trace(n), "] 000102"));
	close(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fakespi");
	TCase *tc = tcase_create("fidelity");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, request_decoding);
	tcase_add_test(tc, setup_requests);
	tcase_add_test(tc, message_budget_and_checks);
	tcase_add_test(tc, last_close_resets_speed);
	tcase_add_test(tc, dspi_profile_as_spi_fsl_dspi);
	suite_add_tcase(s, tc);
	return test_run(s);
}
