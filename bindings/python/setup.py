# SPDX-License-Identifier: MIT
"""Build the offload extension against an installed liboffload, found with
pkg-config (offload.pc): `pip install ./bindings/python`. Set PKG_CONFIG_PATH
when the library is installed outside pkg-config's default search path."""
import glob
import os
import shlex
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup


def have_sim():
    """Is liboffload-sim (offload-sim.pc) installed beside liboffload?"""
    cmd = [os.environ.get("PKG_CONFIG", "pkg-config"), "--exists", "offload-sim"]
    try:
        return subprocess.run(cmd, check=False).returncode == 0
    except FileNotFoundError:
        return False


# With liboffload-sim the module has the models (sim=True, DtSource.BUILTIN), as the CLI does.
MODULE = "offload-sim" if have_sim() else "offload"


def pkg_config(*args):
    cmd = [os.environ.get("PKG_CONFIG", "pkg-config"), *args, MODULE]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit("offload: pkg-config is needed to find liboffload (apt-get install pkg-config)")
    except subprocess.CalledProcessError as e:
        sys.exit("offload: pkg-config cannot find liboffload (offload.pc). Install the library "
                 "(cmake --install build) and, for a prefix pkg-config does not search, set "
                 f"PKG_CONFIG_PATH to its lib/pkgconfig.\n{e.stderr.strip()}")
    return shlex.split(out)


def strip(flags, prefix):
    return [f[len(prefix):] for f in flags if f.startswith(prefix)]


def default_lib_dirs():
    """Directories the dynamic loader searches anyway (no rpath needed for them)."""
    dirs = {"/lib", "/usr/lib", "/lib64", "/usr/lib64"}
    multiarch = sysconfig.get_config_var("MULTIARCH")
    if multiarch:
        dirs |= {f"/lib/{multiarch}", f"/usr/lib/{multiarch}"}
    return dirs


include_dirs = strip(pkg_config("--cflags-only-I"), "-I")
library_dirs = strip(pkg_config("--libs-only-L"), "-L")
libraries = strip(pkg_config("--libs-only-l"), "-l")
system = default_lib_dirs()
# A library installed under another prefix (/usr/local, /opt/...) is found at run time too.
rpath = [d for d in library_dirs if os.path.normpath(d) not in system]

setup(
    version=pkg_config("--modversion")[0],
    ext_modules=[
        Extension(
            "offload._offload",
            sources=sorted(glob.glob("src/*.c")),
            depends=["src/pyoffload.h"],
            include_dirs=["src", *include_dirs],
            library_dirs=library_dirs,
            libraries=libraries,
            runtime_library_dirs=rpath,
            extra_compile_args=[*pkg_config("--cflags-only-other"), "-std=c11", "-D_GNU_SOURCE",
                                *(["-DOFFLOAD_HAVE_SIM"] if MODULE == "offload-sim" else [])],
        )
    ],
)
