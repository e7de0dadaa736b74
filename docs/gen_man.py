#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write liboffload's section-3 man pages from Doxygen's XML output.

    gen_man.py XML_DIR OUT_DIR VERSION DATE

One page per public function (NAME, SYNOPSIS, DESCRIPTION, RETURN VALUE,
THREAD SAFETY, VERSIONS, SEE ALSO), taken from its comment in
include/offload/*.h, and liboffload(3), the overview: the contracts of
offload/offload.h and every function by group. The group of a function (a
Doxygen @defgroup) gives its SEE ALSO list, with the functions its comment
names. Only the standard library is used.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

TITLE = "liboffload Manual"


def esc(s):
    """Text for a roff line: backslashes, and a leading dot or quote."""
    s = s.replace("\\", "\\e")
    s = s.replace("-", "\\-")
    return s


def line_safe(s):
    s = s.strip()
    if s[:1] in (".", "'"):
        s = "\\&" + s
    return s


class Text:
    """Flatten a Doxygen description element into roff paragraphs."""

    def __init__(self):
        self.refs = []

    def inline(self, el):
        out = []
        if el.text:
            out.append(esc(el.text))
        for c in el:
            tag = c.tag
            if tag == "ref":
                name = "".join(c.itertext())
                self.refs.append(name.rstrip("()"))
                out.append("\\fB" + esc(name) + "\\fR")
            elif tag in ("computeroutput", "bold"):
                out.append("\\fB" + esc("".join(c.itertext())) + "\\fR")
            elif tag in ("emphasis", "parametername"):
                out.append("\\fI" + esc("".join(c.itertext())) + "\\fR")
            elif tag in ("itemizedlist", "orderedlist", "parameterlist", "simplesect",
                         "programlisting", "xrefsect", "verbatim"):
                pass  # block-level: handled by paras()
            elif tag == "linebreak":
                out.append(" ")
            elif tag == "ulink":
                out.append(esc("".join(c.itertext())))
            else:
                out.append(self.inline(c))
            if c.tail:
                out.append(esc(c.tail))
        return "".join(out)

    def paras(self, el, skip=()):
        """Roff for the block content of el; skip: simplesect kinds left out."""
        out = []
        if el is None:
            return out
        for p in el.findall("para"):
            text = re.sub(r"\s+", " ", self.inline(p)).strip()
            if text:
                out.append(".PP\n" + line_safe(text))
            for c in p:
                if c.tag in ("itemizedlist", "orderedlist"):
                    for n, li in enumerate(c.findall("listitem"), 1):
                        mark = "\\(bu" if c.tag == "itemizedlist" else "%d." % n
                        body = " ".join(re.sub(r"\s+", " ", self.inline(q)).strip()
                                        for q in li.findall("para"))
                        out.append(".IP %s 2\n%s" % (mark, line_safe(body)))
                elif c.tag == "programlisting":
                    code = []
                    for ln in c.findall("codeline"):
                        code.append(esc("".join(ln.itertext()).rstrip()))
                    out.append(".PP\n.nf\n.RS 4\n" + "\n".join(line_safe(x) or "\\&" for x in code)
                               + "\n.RE\n.fi")
                elif c.tag == "verbatim":
                    out.append(".PP\n.nf\n" + "\n".join(line_safe(esc(x)) or "\\&"
                                                        for x in (c.text or "").split("\n"))
                               + "\n.fi")
        return out


def wrap_proto(proto, width=78):
    """A prototype on lines of at most width columns, arguments aligned."""
    if len(proto) <= width or "(" not in proto:
        return [proto]
    head, rest = proto.split("(", 1)
    indent = " " * (len(head) + 1)
    lines, cur = [], head + "("
    for i, arg in enumerate(rest.split(", ")):
        piece = arg if i == 0 else ", " + arg
        if len(cur) + len(piece) > width and cur.strip() and not cur.endswith("("):
            lines.append(cur + ",")
            cur = indent + arg
        else:
            cur += piece
    lines.append(cur)
    return lines


def block_text(el):
    return re.sub(r"\s+", " ", "".join(el.itertext())).strip() if el is not None else ""


def function_pages(xml_dir):
    index = ET.parse(os.path.join(xml_dir, "index.xml")).getroot()
    groups, funcs = {}, {}
    for comp in index.findall("compound"):
        kind = comp.get("kind")
        if kind not in ("group", "file"):
            continue
        root = ET.parse(os.path.join(xml_dir, comp.get("refid") + ".xml")).getroot()
        cd = root.find("compounddef")
        if kind == "group":
            title = cd.findtext("title")
            members = [m.findtext("name") for m in cd.iter("memberdef")
                       if m.get("kind") in ("function", "define")]
            groups[cd.findtext("compoundname")] = (title, members, block_text(cd.find("briefdescription")))
        for m in cd.iter("memberdef"):
            if m.get("kind") != "function":
                continue
            name = m.findtext("name")
            if not name.startswith("offload_"):
                continue
            loc = m.find("location").get("file")
            funcs.setdefault(name, (m, os.path.basename(loc)))
    return groups, funcs


def group_of(groups, name):
    for gid, (title, members, _) in groups.items():
        if name in members:
            return gid
    return None


def render_function(name, m, header, groups, version, date):
    t = Text()
    brief = re.sub(r"\s+", " ", t.inline(m.find("briefdescription/para"))
                   if m.find("briefdescription/para") is not None else "").strip()
    det = m.find("detaileddescription")
    typ = block_text(m.find("type"))
    args = block_text(m.find("argsstring"))
    proto = "%s %s%s;" % (typ, name, args)
    proto = proto.replace("* ", "*") if typ.endswith("*") else proto

    desc, params, ret, thread, since, deprecated = [], [], [], [], [], []
    for p in det.findall("para"):
        for c in p:
            if c.tag == "parameterlist" and c.get("kind") == "param":
                for it in c.findall("parameteritem"):
                    pn = ", ".join(block_text(x) for x in it.findall("parameternamelist/parametername"))
                    pd = " ".join(re.sub(r"\s+", " ", t.inline(q)).strip()
                                  for q in it.findall("parameterdescription/para"))
                    params.append((pn, pd))
            elif c.tag == "simplesect" and c.get("kind") == "return":
                ret += t.paras(c)
            elif c.tag == "simplesect" and c.get("kind") == "since":
                since.append(re.sub(r"\s+", " ", " ".join(t.inline(q) for q in c.findall("para"))).strip())
            elif c.tag == "xrefsect" and "deprecated" in (c.get("id") or ""):
                deprecated += t.paras(c.find("xrefdescription"))
        text = re.sub(r"\s+", " ", t.inline(p)).strip()
        if text.startswith("Thread\\-safety:"):
            rule = text[len("Thread\\-safety:"):].strip()
            thread.append(line_safe(rule[:1].upper() + rule[1:]))
            continue
        if text:
            desc.append(".PP\n" + line_safe(text))
        for c in p:
            if c.tag in ("itemizedlist", "orderedlist", "programlisting", "verbatim"):
                fake = ET.Element("x")
                fp = ET.SubElement(fake, "para")
                fp.append(c)
                desc += [x for x in t.paras(fake) if not x.startswith(".PP\n") or "\n.nf" in x
                         or x.startswith(".IP")]

    out = []
    out.append('.TH %s 3 "%s" "liboffload %s" "%s"' % (name.upper().replace("_", "\\_"), date,
                                                       version, TITLE))
    out.append(".SH NAME")
    out.append("%s \\- %s" % (esc(name), line_safe(brief.rstrip(".")) if brief else esc(name)))
    out.append(".SH SYNOPSIS")
    # <offload/sim.h> is liboffload-sim's, which offload.h does not include
    sim = header == "sim.h"
    out.append(".nf")
    out.append(".B #include <offload/offload.h>")
    if sim:
        out.append(".B #include <offload/sim.h>")
    out.append(".PP")
    out += wrap_proto(esc(proto))  # .nf keeps the alignment; lines start with a type or spaces
    out.append(".fi")
    out.append(".PP")
    if sim:
        out.append("Link with \\fI\\-loffload\\-sim \\-loffload\\fR (liboffload-sim, declared in "
                   "\\fI<offload/sim.h>\\fR).")
    else:
        out.append("Link with \\fI\\-loffload\\fR (declared in \\fI<offload/%s>\\fR)." % esc(header))
    out.append(".SH DESCRIPTION")
    if deprecated:
        out.append(".PP\n\\fBDeprecated.\\fR")
        out += deprecated
    out += desc if desc else [".PP\n" + line_safe(brief)]
    if params:
        out.append(".PP\nArguments:")
        for pn, pd in params:
            out.append(".TP\n.I %s\n%s" % (esc(pn), line_safe(pd)))
    if typ != "void" or ret:
        out.append(".SH RETURN VALUE")
        out += ret if ret else [".PP\nNone."]
    if thread:
        out.append(".SH THREAD SAFETY")
        out += [".PP\n" + x for x in thread]
    if since:
        out.append(".SH VERSIONS")
        out += [".PP\n" + line_safe(x) for x in since]
    gid = group_of(groups, name)
    see = []
    if gid:
        see += [x for x in groups[gid][1] if x.startswith("offload_") and x != name]
    see += [r for r in t.refs if r.startswith("offload_") and r != name and r not in see]
    out.append(".SH SEE ALSO")
    items = ["\\fBliboffload\\fR(3)"] + ["\\fB%s\\fR(3)" % esc(s) for s in sorted(set(see))
                                          if s in FUNC_NAMES]
    out.append(",\n".join(items))
    return "\n".join(out) + "\n"


def render_overview(xml_dir, groups, funcs, version, date):
    t = Text()
    main = None
    index = ET.parse(os.path.join(xml_dir, "index.xml")).getroot()
    for comp in index.findall("compound"):
        if comp.get("kind") == "file" and comp.findtext("name") == "offload.h":
            main = ET.parse(os.path.join(xml_dir, comp.get("refid") + ".xml")).getroot().find("compounddef")
    out = ['.TH LIBOFFLOAD 3 "%s" "liboffload %s" "%s"' % (date, version, TITLE)]
    out.append(".SH NAME")
    out.append("liboffload \\- offload memcpy, SPI transfers and crypto to SoC engines, "
               "configured from the device tree")
    out.append(".SH SYNOPSIS")
    out.append(".nf\n.B #include <offload/offload.h>\n.fi")
    out.append(".PP\nLink with \\fI\\-loffload\\fR, or \\fIpkg\\-config \\-\\-cflags \\-\\-libs offload\\fR.")
    out.append(".SH DESCRIPTION")
    if main is not None:
        # the synopsis block and its lead-in are rendered from the groups below
        paras = [p for p in t.paras(main.find("detaileddescription"))
                 if "\n.nf" not in p and not p.startswith(".PP\nSynopsis, by group")]
        out += paras
    out.append(".SH FUNCTIONS")
    order = ["version", "errors", "context", "devices", "memcpy", "queue", "buffers", "spi", "crypto"]
    for gid in order + sorted(g for g in groups if g not in order):
        if gid not in groups:
            continue
        title, members, brief = groups[gid]
        fn = [x for x in members if x in funcs]
        if not fn:
            continue
        out.append(".SS %s" % esc(title))
        if brief:
            out.append(".PP\n" + line_safe(esc(brief)))
        out.append(".PP\n" + ",\n".join("\\fB%s\\fR(3)" % esc(x) for x in fn))
    out.append(".SH SEE ALSO")
    out.append("\\fBoffloadctl\\fR(1)")
    return "\n".join(out) + "\n"


FUNC_NAMES = set()


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: gen_man.py XML_DIR OUT_DIR VERSION DATE")
    xml_dir, out_dir, version, date = sys.argv[1:]
    groups, funcs = function_pages(xml_dir)
    if not funcs:
        sys.exit("gen_man.py: no offload_* function in %s" % xml_dir)
    FUNC_NAMES.update(funcs)
    os.makedirs(out_dir, exist_ok=True)
    for old in os.listdir(out_dir):
        if old.endswith(".3"):
            os.unlink(os.path.join(out_dir, old))
    for name, (m, header) in sorted(funcs.items()):
        with open(os.path.join(out_dir, name + ".3"), "w") as f:
            f.write(render_function(name, m, header, groups, version, date))
    with open(os.path.join(out_dir, "liboffload.3"), "w") as f:
        f.write(render_overview(xml_dir, groups, funcs, version, date))
    print("gen_man.py: %d pages in %s" % (len(funcs) + 1, out_dir))


if __name__ == "__main__":
    main()
