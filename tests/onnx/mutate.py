#!/usr/bin/python3
"""Mutation test of the ONNX importer: rewrites a network into graphs that compute the same
integers by other ONNX patterns, and checks that each imports to the same ctile network and
verifies bit-exact against the folder's golden files.

The rewrites (each also combined with all others in the variant `all`):
  swap       constant operands of Mul / Add first: Mul(k, x), Add(l, x)
  casts      Cast(float) after every float elementwise node, Cast(int64) -> Cast(float)
             after every Floor
  nocasts    NEMO's Cast(int64) .. integer Div .. Cast(float) replaced by a float Div + Floor
             (the same once a Clip with a lower bound >= 0 follows, as it does in the chain)
  relu       Clip(0, 255) -> Relu, Relu -> Clip(0, 255)
  constants  initializers -> Constant nodes, Constant nodes -> initializers (two variants)
  opset11    opset 11: Clip bounds and Pad pads as inputs (opset 13 also moves Unsqueeze /
             Squeeze axes to inputs)
  identity   Identity / Dropout / a Reshape to the same shape after every activation node
  bits       Quantlab bit-width attributes: weight_bits 8 and bias_bits 32 on Conv,
             mult_bits 32 on Mul, add_bits 32 on Add, out_bits on a Clip from its bounds

The reference network is the unmodified model's header from ctile-import; comments (which
name nodes by index) are left out of the comparison. Nothing here knows a network by name.

Usage: mutate.py CTILE_IMPORT CTILE_VERIFY SRC_DIR WORK_DIR [ctile-verify options...]
"""
import copy
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOATS = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16)


class Names:
    def __init__(self, model):
        self.used = {t for n in model.graph.node for t in list(n.input) + list(n.output)}
        self.used |= {i.name for i in model.graph.initializer}
        self.used |= {i.name for i in model.graph.input} | {o.name for o in model.graph.output}
        self.i = 0

    def __call__(self, base="t"):
        while True:
            self.i += 1
            name = "mut%d_%s" % (self.i, base)
            if name not in self.used:
                self.used.add(name)
                return name


def constants(model):
    """name -> numpy value of every initializer and Constant output."""
    c = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    c[n.output[0]] = numpy_helper.to_array(a.t)
    return c


def types(model, consts):
    """Element type of every tensor, followed through the graph (an elementwise node has its
    activation operand's type)."""
    t = {i.name: i.data_type for i in model.graph.initializer}
    for i in model.graph.input:
        t.setdefault(i.name, i.type.tensor_type.elem_type or TensorProto.FLOAT)
    for n in model.graph.node:
        if n.op_type == "Constant":
            v = [a.t.data_type for a in n.attribute if a.name == "value"]
            ty = v[0] if v else TensorProto.FLOAT
        elif n.op_type == "Cast":
            ty = [a.i for a in n.attribute if a.name == "to"][0]
        elif n.op_type == "Shape":
            ty = TensorProto.INT64
        else:
            ty = next((t[x] for x in n.input if x in t and x not in consts), None)
            if ty is None:
                ty = t.get(n.input[0], TensorProto.FLOAT) if n.input else TensorProto.FLOAT
        for o in n.output:
            t[o] = ty
    return t


def consumers(model):
    c = {}
    for i, n in enumerate(model.graph.node):
        for x in n.input:
            c.setdefault(x, []).append(i)
    return c


def set_nodes(model, nodes):
    del model.graph.node[:]
    model.graph.node.extend(nodes)


def insert_after(model, pick, make):
    """For every node where pick(node) holds, feeds its output 0 through make(names, tensor)
    (a list of nodes ending in a new tensor) and renames the consumers' inputs. Graph outputs
    are left alone."""
    outs = {o.name for o in model.graph.output}
    names = Names(model)
    nodes = []
    rename = {}
    for n in model.graph.node:
        n = copy.deepcopy(n)
        for j, x in enumerate(n.input):
            if x in rename:
                n.input[j] = rename[x]
        nodes.append(n)
        if pick(n) and n.output[0] not in outs:
            extra, last = make(names, n.output[0])
            nodes.extend(extra)
            rename[n.output[0]] = last
    set_nodes(model, nodes)
    return bool(rename)


# ---- rewrites: each returns True when it changed something -------------------------------

def swap(model):
    consts = constants(model)
    changed = False
    for n in model.graph.node:
        if n.op_type in ("Mul", "Add") and len(n.input) == 2:
            a, b = n.input
            if (a in consts) != (b in consts):
                n.input[0], n.input[1] = b, a
                changed = True
    return changed


def casts(model):
    ty = types(model, constants(model))
    producer_op = {o: n.op_type for n in model.graph.node for o in n.output}
    elementwise = ("Mul", "Add", "Sub", "Div", "Clip", "Relu", "Conv", "MaxPool")

    def pick(n):
        return (n.op_type in elementwise and ty.get(n.output[0]) in FLOATS) or n.op_type == "Floor"

    def make(names, x):
        out = []
        cur = x
        if ty.get(x) in FLOATS and producer_op.get(x) == "Floor":
            mid = names("i64")
            out.append(helper.make_node("Cast", [cur], [mid], to=TensorProto.INT64))
            cur = mid
        nxt = names("f32")
        out.append(helper.make_node("Cast", [cur], [nxt], to=TensorProto.FLOAT))
        return out, nxt

    return insert_after(model, pick, make)


def nocasts(model):
    """Cast(int) .. Div .. Cast(float) -> .. Div Floor .. (a float chain)."""
    consts = constants(model)
    cons = consumers(model)
    prod = {o: n for n in model.graph.node for o in n.output}
    outs = {o.name for o in model.graph.output}
    names = Names(model)
    drop = set()
    floor_after = set()
    for n in model.graph.node:
        if n.op_type != "Cast" or [a.i for a in n.attribute if a.name == "to"][0] in FLOATS:
            continue
        src = n.input[0]
        if src in consts or src not in prod:
            continue
        # Follow single consumers until the Cast back to float.
        cur, path, ok = n.output[0], [], False
        while True:
            c = cons.get(cur, [])
            if len(c) != 1 or cur in outs:
                break
            m = model.graph.node[c[0]]
            if m.op_type == "Cast":
                ok = [a.i for a in m.attribute if a.name == "to"][0] in FLOATS
                if ok:
                    path.append(m)
                break
            if m.op_type not in ("Mul", "Div", "Add") or not any(x in consts for x in m.input):
                break
            path.append(m)
            cur = m.output[0]
        if not ok:
            continue
        # The float chain must end in a clip with a lower bound >= 0 (trunc == floor there).
        nxt = cons.get(path[-1].output[0], [])
        if len(nxt) != 1 or model.graph.node[nxt[0]].op_type not in ("Clip", "Relu"):
            continue
        drop.add(id(n))
        drop.add(id(path[-1]))
        for m in path[:-1]:
            if m.op_type == "Div":
                floor_after.add(id(m))
    if not drop:
        return False
    rename = {}
    nodes = []
    for n in model.graph.node:
        if id(n) in drop:
            rename[n.output[0]] = rename.get(n.input[0], n.input[0])
            continue
        m = copy.deepcopy(n)
        for j, x in enumerate(m.input):
            if x in rename:
                m.input[j] = rename[x]
        nodes.append(m)
        if id(n) in floor_after:
            f = names("floor")
            nodes.append(helper.make_node("Floor", [m.output[0]], [f]))
            rename[m.output[0]] = f
    set_nodes(model, nodes)
    return True


def relu(model):
    consts = constants(model)
    changed = False
    nodes = []
    names = Names(model)
    for n in model.graph.node:
        bounds = clip_bounds(n, consts)
        if n.op_type == "Clip" and bounds == (0.0, 255.0):
            nodes.append(helper.make_node("Relu", [n.input[0]], list(n.output), name=n.name))
            changed = True
        elif n.op_type == "Relu":
            lo, hi = names("lo"), names("hi")
            if opset(model) >= 11:
                nodes.append(helper.make_node("Constant", [], [lo], value=numpy_helper.from_array(
                    np.array(0, np.float32))))
                nodes.append(helper.make_node("Constant", [], [hi], value=numpy_helper.from_array(
                    np.array(255, np.float32))))
                nodes.append(helper.make_node("Clip", [n.input[0], lo, hi], list(n.output)))
            else:
                nodes.append(helper.make_node("Clip", [n.input[0]], list(n.output), min=0.0,
                                              max=255.0))
            changed = True
        else:
            nodes.append(n)
    set_nodes(model, nodes)
    return changed


def opset(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return 1


def clip_bounds(n, consts):
    if n.op_type != "Clip":
        return None
    lo, hi = -np.inf, np.inf
    for a in n.attribute:
        if a.name == "min":
            lo = a.f
        if a.name == "max":
            hi = a.f
    if len(n.input) > 1 and n.input[1]:
        lo = float(np.asarray(consts[n.input[1]]).reshape(-1)[0])
    if len(n.input) > 2 and n.input[2]:
        hi = float(np.asarray(consts[n.input[2]]).reshape(-1)[0])
    return (float(lo), float(hi))


def initializers_to_constants(model):
    if not model.graph.initializer:
        return False
    nodes = [helper.make_node("Constant", [], [i.name], value=copy.deepcopy(i))
             for i in model.graph.initializer]
    names = {i.name for i in model.graph.initializer}
    keep = [i for i in model.graph.input if i.name not in names]
    del model.graph.input[:]
    model.graph.input.extend(keep)
    del model.graph.initializer[:]
    set_nodes(model, nodes + list(model.graph.node))
    return True


def constants_to_initializers(model):
    changed = False
    nodes = []
    for n in model.graph.node:
        if n.op_type == "Constant" and any(a.name == "value" for a in n.attribute):
            t = copy.deepcopy([a.t for a in n.attribute if a.name == "value"][0])
            t.name = n.output[0]
            model.graph.initializer.append(t)
            changed = True
        else:
            nodes.append(n)
    set_nodes(model, nodes)
    return changed


def to_opset(version):
    def rewrite(model):
        if opset(model) >= version:
            return False
        for o in model.opset_import:
            if o.domain in ("", "ai.onnx"):
                o.version = version
        names = Names(model)
        nodes = []

        def const(value, dtype):
            nm = names("c")
            nodes.append(helper.make_node("Constant", [], [nm], value=numpy_helper.from_array(
                np.array(value, dtype))))
            return nm

        for n in model.graph.node:
            n = copy.deepcopy(n)
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            if n.op_type == "Clip" and ("min" in attrs or "max" in attrs):
                lo = const(attrs["min"], np.float32) if "min" in attrs else ""
                hi = const(attrs["max"], np.float32) if "max" in attrs else ""
                keep = [a for a in n.attribute if a.name not in ("min", "max")]
                del n.attribute[:]
                n.attribute.extend(keep)
                n.input.extend([lo, hi] if hi else [lo])
            elif n.op_type == "Pad" and "pads" in attrs:
                pads = const(attrs["pads"], np.int64)
                ins = [n.input[0], pads]
                if attrs.get("value", 0.0) != 0.0 or "value" in attrs:
                    ins.append(const(attrs.get("value", 0.0), np.float32))
                keep = [a for a in n.attribute if a.name == "mode"]
                del n.attribute[:]
                n.attribute.extend(keep)
                del n.input[:]
                n.input.extend(ins)
            elif version >= 13 and n.op_type in ("Unsqueeze", "Squeeze") and "axes" in attrs:
                axes = const(attrs["axes"], np.int64)
                del n.attribute[:]
                n.input.append(axes)
            nodes.append(n)
        set_nodes(model, nodes)
        return True
    return rewrite


def identity(model):
    try:
        shapes = onnx.shape_inference.infer_shapes(model)
        dims = {}
        for v in list(shapes.graph.value_info) + list(shapes.graph.input):
            d = [x.dim_value for x in v.type.tensor_type.shape.dim]
            if d and all(x > 0 for x in d):
                dims[v.name] = d
    except Exception:  # noqa: BLE001 - shape inference is optional here
        dims = {}
    consts = constants(model)
    kinds = ["Identity", "Dropout", "Reshape"]
    count = [0]

    def pick(n):
        return n.op_type != "Constant" and n.output[0] not in consts and \
            not all(x in consts or x == "" for x in n.input)

    def make(names, x):
        kind = kinds[count[0] % 3]
        count[0] += 1
        y = names(kind.lower())
        if kind == "Reshape" and x in dims:
            s = names("shape")
            return [helper.make_node("Constant", [], [s], value=numpy_helper.from_array(
                np.array(dims[x], np.int64))), helper.make_node("Reshape", [x, s], [y])], y
        if kind == "Dropout":
            return [helper.make_node("Dropout", [x], [y])], y
        return [helper.make_node("Identity", [x], [y])], y

    return insert_after(model, pick, make)


def bits(model):
    consts = constants(model)
    changed = False
    for n in model.graph.node:
        names = {a.name for a in n.attribute}
        if n.op_type == "Conv" and "weight_bits" not in names:
            n.attribute.extend([helper.make_attribute("weight_bits", 8)])
            if len(n.input) > 2 and "bias_bits" not in names:
                n.attribute.extend([helper.make_attribute("bias_bits", 32)])
            changed = True
        elif n.op_type == "Mul" and any(x in consts for x in n.input) and "mult_bits" not in names:
            n.attribute.extend([helper.make_attribute("mult_bits", 32)])
            changed = True
        elif n.op_type == "Add" and any(x in consts for x in n.input) and "add_bits" not in names:
            n.attribute.extend([helper.make_attribute("add_bits", 32)])
            changed = True
        elif n.op_type == "Clip" and "out_bits" not in names:
            lo, hi = clip_bounds(n, consts)
            if lo == 0 and np.isfinite(hi) and hi >= 1 and (int(hi) + 1) & int(hi) == 0:
                n.attribute.extend([helper.make_attribute("out_bits", int(hi + 1).bit_length() - 1)])
                changed = True
    return changed


REWRITES = [
    ("swap", [swap]),
    ("casts", [casts]),
    ("nocasts", [nocasts]),
    ("relu", [relu]),
    ("init_to_constant", [initializers_to_constants]),
    ("constant_to_init", [constants_to_initializers]),
    ("opset11", [to_opset(11)]),
    ("opset13", [to_opset(13)]),
    ("identity", [identity]),
    ("bits", [bits]),
    ("all", [nocasts, swap, relu, to_opset(11), bits, initializers_to_constants, identity, casts]),
]


def canonical(header):
    """The header without comments (they name nodes by index) and blank lines."""
    out = []
    for line in header.splitlines():
        line = re.sub(r"//.*$", "", line).rstrip()
        if line:
            out.append(line)
    return "\n".join(out)


def import_header(exe, model_path, out):
    p = subprocess.run([exe, model_path, "-o", out, "--name", "net"], capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        return None, p.stderr.strip()
    with open(out) as f:
        return canonical(f.read()), ""


def main():
    exe_import, exe_verify, src, work = sys.argv[1:5]
    verify_args = sys.argv[5:]
    os.makedirs(work, exist_ok=True)
    ref, err = import_header(exe_import, os.path.join(src, "model_int.onnx"),
                             os.path.join(work, "reference.hpp"))
    if ref is None:
        print("FAIL: the unmodified model does not import: " + err)
        return 1
    base = onnx.load(os.path.join(src, "model_int.onnx"))
    failures = 0
    for name, steps in REWRITES:
        m = copy.deepcopy(base)
        changed = [step(m) for step in steps]
        if not any(changed):
            print("%-18s not applicable (no such pattern in the graph)" % name)
            continue
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(src):
            if f.endswith(".txt") or f.endswith(".json"):
                link = os.path.join(d, f)
                if os.path.lexists(link):
                    os.remove(link)
                os.symlink(os.path.abspath(os.path.join(src, f)), link)
        onnx.save(m, os.path.join(d, "model_int.onnx"))
        got, err = import_header(exe_import, os.path.join(d, "model_int.onnx"),
                                 os.path.join(d, "net.hpp"))
        if got is None:
            print("%-18s FAIL: import: %s" % (name, err))
            failures += 1
            continue
        if got != ref:
            a, b = ref.splitlines(), got.splitlines()
            i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
            print("%-18s FAIL: imports to a different network; first difference at line %d:\n"
                  "  reference: %s\n  variant:   %s" % (name, i + 1, a[i][:160] if i < len(a) else
                                                       "<end>", b[i][:160] if i < len(b) else "<end>"))
            failures += 1
            continue
        p = subprocess.run([exe_verify, d] + verify_args, capture_output=True, text=True,
                           timeout=600)
        last = (p.stdout.strip().splitlines() or [""])[-1]
        if p.returncode != 0:
            print("%-18s FAIL: ctile-verify exit %d: %s %s" % (name, p.returncode, last,
                                                              p.stderr.strip()))
            failures += 1
            continue
        print("%-18s same network, %s" % (name, last))
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
