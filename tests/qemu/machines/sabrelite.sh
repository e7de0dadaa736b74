# Machine profile: QEMU's sabrelite (NXP i.MX6Q, Cortex-A9) with Debian's
# armmp kernel and the board's own device tree from the package. Its ECSPI1
# carries an SST25VF016B flash on chip select 0 (QEMU hw/arm/sabrelite.c);
# spi-imx is a module (CONFIG_SPI_IMX=m), spidev is built in. See x86.sh for
# the variables. No exit device (the i.MX6 reset of this kernel does not end
# qemu): the host stops qemu after the verdict line.
M_ARCH=armhf
M_META=linux-image-6.12-armmp
M_QEMU=qemu-system-arm
M_QEMU_USER=qemu-arm
M_MODDIRS="kernel/drivers/spi"
M_MODULES="spi-imx"
M_DTB=imx6q-sabrelite.dtb
M_EXIT=marker
M_CONSOLE=ttymxc1

# The flash's contents (-drive if=mtd: QEMU's sabrelite backs the
# SST25VF016B with the first MTD drive): 2 MiB, every 4 KiB sector filled
# with its number + 1 (mod 256), which guest_spiflash expects. snapshot=on:
# the guest's erase never reaches the file.
flash_image() {
    f=$build/qemu-initramfs/sabrelite-flash.img
    if [ ! -s "$f" ]; then
        i=0
        while [ $i -lt 512 ]; do
            head -c 4096 /dev/zero | tr '\000' "\\$(printf %03o $(((i + 1) & 255)))"
            i=$((i + 1))
        done >"$f.tmp"
        mv "$f.tmp" "$f"
    fi
    echo "$f"
}

machine_args() {
    # The console is UART2, qemu's second serial port.
    echo "-M sabrelite -m 1024 -nic none -accel tcg -serial null -serial mon:stdio
        -drive if=mtd,format=raw,snapshot=on,file=$(flash_image)"
}

machine_suite() {
    cpu=""
    extra=""
    case "$1" in
        spi | platform | shell) ;;
        *) return 1 ;;
    esac
}

# ECSPI1 (spi@2008000): spidev on chip select 0 instead of the flash driver
# (a compatible spidev's of_match table lists: rohm,dh2228fv), and on chip
# select 1, which has nothing on it. Native chip selects (cs-gpios removed):
# qemu wires the flash to the controller's own CS0 line, not to GPIO3_19. No
# SDMA (dmas removed): qemu does not model it; spi-imx then works by PIO.
machine_dtb() {
    cp "$1" "$2"
    spi=$(fdtget "$2" /aliases spi0)
    fdtput -d "$2" "$spi" cs-gpios
    fdtput -d "$2" "$spi" dmas
    fdtput -d "$2" "$spi" dma-names
    fdtput -t s "$2" "$spi/flash@0" compatible rohm,dh2228fv
    fdtput -c "$2" "$spi/spidev@1"
    fdtput -t s "$2" "$spi/spidev@1" compatible rohm,dh2228fv
    fdtput -t x "$2" "$spi/spidev@1" reg 1
    fdtput -t x "$2" "$spi/spidev@1" spi-max-frequency 0x1312d00
}
