#!/usr/bin/python3
"""Synthetic ONNX fixtures for the importer.

Valid fixtures are small integer-quantized graphs, one per family of patterns that exported
networks use (NEMO and Quantlab). Each is written as a DORY-style folder (model_int.onnx,
input.txt, out_layerK.txt) so that ctile-verify can check it. The expected outputs are computed
here with numpy int64 arithmetic that follows the graph's nodes one by one; nothing is taken
from ctile.

Invalid fixtures are models that the importer must refuse with a clear error; `expect.txt`
holds a regular expression the error message must match.

Usage: make_fixtures.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(20261121)


def floordiv(a, d):
    return np.floor_divide(a, d)


def truncdiv(a, d):
    q = np.abs(a) // abs(d)
    return np.where((a < 0) != (d < 0), -q, q)


def conv_np(x, w, stride, pads, group):
    """x [1,C,H,W], w [O,C/g,kh,kw], pads (t,b,l,r): int64 convolution with zero padding."""
    t, b, l, r = pads
    sh, sw = stride
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)))
    _, c, h, wd = xp.shape
    o, _, kh, kw = w.shape
    oh = (h - kh) // sh + 1
    ow = (wd - kw) // sw + 1
    out = np.zeros((1, o, oh, ow), dtype=np.int64)
    for ky in range(kh):
        for kx in range(kw):
            patch = xp[:, :, ky:ky + sh * (oh - 1) + 1:sh, kx:kx + sw * (ow - 1) + 1:sw]
            if group == 1:
                out += np.einsum("oc,bchw->bohw", w[:, :, ky, kx], patch)
            else:  # one input channel per group; output o reads input o // (O / group)
                idx = np.arange(o) // (o // group)
                out += w[:, 0, ky, kx][None, :, None, None] * patch[:, idx]
    return out


def pool_np(x, k, stride, kind):
    kh, kw = k
    sh, sw = stride
    _, c, h, w = x.shape
    oh = (h - kh) // sh + 1
    ow = (w - kw) // sw + 1
    out = np.zeros((1, c, oh, ow), dtype=np.int64)
    if kind == "max":
        out[:] = np.iinfo(np.int64).min
    for ky in range(kh):
        for kx in range(kw):
            patch = x[:, :, ky:ky + sh * (oh - 1) + 1:sh, kx:kx + sw * (ow - 1) + 1:sw]
            out = np.maximum(out, patch) if kind == "max" else out + patch
    return out


class Graph:
    def __init__(self, name, shape, opset=9):
        self.name = name
        self.opset = opset
        self.nodes = []
        self.inits = []
        self.count = 0
        self.goldens = []  # anchor outputs in graph order (numpy, NCHW / NCL / NK)
        self.outputs = []
        self.x_name = "input"
        hi = 256
        self.x = rng.integers(0, hi, size=shape).astype(np.int64)
        self.in_shape = shape

    def fresh(self):
        self.count += 1
        return "t%d" % self.count

    def init(self, arr, dtype=np.float32):
        n = "w%d" % self.count
        self.count += 1
        self.inits.append(numpy_helper.from_array(np.asarray(arr).astype(dtype), n))
        return n

    def const(self, arr, dtype=np.float32):
        out = self.fresh()
        t = numpy_helper.from_array(np.asarray(arr).astype(dtype), out + "_v")
        self.nodes.append(helper.make_node("Constant", [], [out], value=t))
        return out

    def node(self, op, inputs, **attrs):
        out = self.fresh()
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def anchor(self, v):
        self.goldens.append(v.copy())

    def save(self, root, extra_outputs=()):
        d = os.path.join(root, self.name)
        os.makedirs(d, exist_ok=True)
        inp = helper.make_tensor_value_info(self.x_name, TensorProto.FLOAT, list(self.in_shape))
        outs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in self.outputs]
        g = helper.make_graph(self.nodes, self.name, [inp], outs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 6
        onnx.save(m, os.path.join(d, "model_int.onnx"))
        write_values(os.path.join(d, "input.txt"), "# input (shape %s)" % list(self.in_shape),
                     hwc(self.x))
        for k, v in enumerate(self.goldens):
            write_values(os.path.join(d, "out_layer%d.txt" % k), "layer%d (shape %s)" %
                         (k, list(v.shape)), hwc(v))
        return d


def hwc(v):
    if v.ndim == 4:
        return v.transpose(0, 2, 3, 1).reshape(-1)
    if v.ndim == 3:
        return v.transpose(0, 2, 1).reshape(-1)
    return v.reshape(-1)


def write_values(path, header, vals):
    with open(path, "w") as f:
        f.write(header + ",\\\n")
        for v in vals:
            f.write("%d,\\\n" % int(v))


def pick_divisor(t, m, top=200, pct=95):
    """A divisor that maps the bulk of t*m into 0..top (keeps outputs informative)."""
    p = np.percentile(np.abs(t * m), pct)
    return max(1, int(p // top))


def nemo_requant(g, x_name, acc, kappa, lam, bits=8, int64_path=True, relu=False):
    """NEMO's Mul kappa -> Add lambda -> Cast -> Mul m -> Div d -> Cast -> Clip chain."""
    c = acc.shape[1]
    shp = [1, c] + [1] * (acc.ndim - 2)
    k = g.init(kappa.reshape(shp))
    t1 = g.node("Mul", [k, x_name])
    lm = g.init(lam.reshape(shp))
    t2 = g.node("Add", [t1, lm])
    t = acc * kappa.reshape(shp) + lam.reshape(shp)
    m = int(rng.integers(3, 60))
    d = pick_divisor(t, m, pct=100 if relu else 95)
    if int64_path:
        t3 = g.node("Cast", [t2], to=TensorProto.INT64)
        t4 = g.node("Mul", [t3, g.const([m], np.int64)])
        t5 = g.node("Div", [t4, g.const([d], np.int64)])
        t6 = g.node("Cast", [t5], to=TensorProto.FLOAT)
        y = truncdiv(t * m, d)
    else:
        t4 = g.node("Mul", [t2, g.const(float(m))])
        t5 = g.node("Div", [t4, g.const(float(d))])
        t6 = g.node("Floor", [t5])
        y = floordiv(t * m, d)
    hi = (1 << bits) - 1
    if relu:
        out = g.node("Relu", [t6])
        y = np.maximum(y, 0)
        assert y.max() <= 255, "Relu output must stay within 8 bits for this fixture"
    elif g.opset >= 11:
        out = g.node("Clip", [t6, g.const(0.0), g.const(float(hi))])
        y = np.clip(y, 0, hi)
    else:
        out = g.node("Clip", [t6], min=0.0, max=float(hi))
        y = np.clip(y, 0, hi)
    return out, y


def conv(g, x_name, x, cout, k, stride=(1, 1), pads=(0, 0, 0, 0), group=1, bias=False):
    cin = x.shape[1]
    kh, kw = k
    w = rng.integers(-20, 21, size=(cout, cin // group, kh, kw)).astype(np.int64)
    ins = [x_name, g.init(w)]
    acc = conv_np(x, w, stride, pads, group)
    if bias:
        b = rng.integers(-300, 300, size=cout).astype(np.int64)
        ins.append(g.init(b))
        acc = acc + b.reshape(1, cout, 1, 1)
    t, b_, l, r = pads
    out = g.node("Conv", ins, kernel_shape=[kh, kw], strides=list(stride), pads=[t, l, b_, r],
                 dilations=[1, 1], group=group)
    return out, acc


def bn(c):
    return (rng.integers(1, 8, size=c).astype(np.int64),
            rng.integers(-500, 500, size=c).astype(np.int64))


# ---------------------------------------------------------------------------------------------
# Valid fixtures


def fx_nemo_pad_bias():
    """NEMO: leading Pad nodes folded into convs, conv bias + kappa/lambda, Cast/int64 path,
    a Relu requant, depthwise, MaxPool, Flatten -> Gemm(transB) with bias, LogSoftmax tail."""
    g = Graph("nemo_pad_bias", [1, 3, 12, 10])
    p = g.node("Pad", [g.x_name], mode="constant", pads=[0, 0, 1, 1, 0, 0, 1, 1], value=0.0)
    # The Pad node's padding comes before the conv's own: the conv sees the padded input.
    xp = np.pad(g.x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    c1, acc = conv(g, p, xp, 8, (3, 3), pads=(1, 1, 1, 1), bias=True)
    kap, lam = bn(8)
    y1n, y1 = nemo_requant(g, c1, acc, kap, lam)
    g.anchor(y1)
    p2 = g.node("Pad", [y1n], mode="constant", pads=[0, 0, 1, 1, 0, 0, 1, 1], value=0.0)
    c2, acc2 = conv(g, p2, np.pad(y1, ((0, 0), (0, 0), (1, 1), (1, 1))), 8, (3, 3),
                    stride=(2, 2), group=8)
    kap2, lam2 = bn(8)
    y2n, y2 = nemo_requant(g, c2, acc2, kap2, lam2, int64_path=False, relu=True)
    g.anchor(y2)
    mp = g.node("MaxPool", [y2n], kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 0, 0])
    y3 = pool_np(y2, (2, 2), (2, 2), "max")
    g.anchor(y3)
    f = g.node("Flatten", [mp], axis=1)
    flat = y3.reshape(1, -1)  # CHW order, as ONNX flattens NCHW
    w = rng.integers(-30, 31, size=(5, flat.shape[1])).astype(np.int64)
    b = rng.integers(-1000, 1000, size=5).astype(np.int64)
    fc = g.node("Gemm", [f, g.init(w), g.init(b)], alpha=1.0, beta=1.0, transB=1)
    g.anchor(flat @ w.T + b)
    out = g.node("LogSoftmax", [fc], axis=1)
    g.outputs = [out]
    return g


def fx_quantlab_4bit():
    """Quantlab: Mul -> Add -> Div(2^k) -> Floor -> Clip(0, 15) without Casts (4-bit output),
    per-channel constants shaped by Unsqueeze / Reshape nodes, Clip with min/max inputs
    (opset 13), Pad with a pads input, a 4-bit layer feeding an 8-bit one, GlobalAveragePool,
    MatMul with a [K, N] weight, Softmax tail."""
    g = Graph("quantlab_4bit", [1, 2, 9, 9], opset=13)

    def ql_requant(x_name, acc, bits, shape_op):
        c = acc.shape[1]
        mul = rng.integers(1, 6, size=c).astype(np.int64)
        addv = rng.integers(-200, 200, size=c).astype(np.int64)
        t = acc * mul.reshape(1, c, 1, 1) + addv.reshape(1, c, 1, 1)
        hi = (1 << bits) - 1
        k = max(0, int(np.ceil(np.log2(max(1.0, np.percentile(np.abs(t), 95) / hi)))))
        # Per-channel constants stored as [C] and brought to [1, C, 1, 1] by shape plumbing.
        if shape_op == "Unsqueeze":
            axes = g.init(np.array([0, 2, 3]), np.int64)
            mc = g.node("Unsqueeze", [g.init(mul), axes])
            ac = g.node("Unsqueeze", [g.init(addv), axes])
        else:
            shp = g.init(np.array([1, -1, 1, 1]), np.int64)
            mc = g.node("Reshape", [g.init(mul), shp])
            ac = g.node("Reshape", [g.init(addv), shp])
        t1 = g.node("Mul", [x_name, mc])
        t2 = g.node("Add", [t1, ac])
        t3 = g.node("Div", [t2, g.init(np.array(2.0 ** k))])
        t4 = g.node("Floor", [t3])
        out = g.node("Clip", [t4, g.init(np.array(0.0)), g.init(np.array(float(hi)))])
        return out, np.clip(floordiv(t, 2 ** k), 0, hi)

    pads = g.init(np.array([0, 0, 1, 1, 0, 0, 1, 1]), np.int64)
    p = g.node("Pad", [g.x_name, pads], mode="constant")
    c1, acc = conv(g, p, np.pad(g.x, ((0, 0), (0, 0), (1, 1), (1, 1))), 6, (3, 3))
    y1n, y1 = ql_requant(c1, acc, 4, "Unsqueeze")
    g.anchor(y1)
    assert y1.max() <= 15
    c2, acc2 = conv(g, y1n, y1, 8, (1, 1))
    y2n, y2 = ql_requant(c2, acc2, 8, "Reshape")
    g.anchor(y2)
    gap = g.node("GlobalAveragePool", [y2n])
    area = y2.shape[2] * y2.shape[3]
    s = y2.sum(axis=(2, 3), keepdims=True)
    t1 = g.node("Mul", [gap, g.init(np.array(float(area)))])  # back to the sum
    t2 = g.node("Mul", [t1, g.init(np.array(3.0))])
    t3 = g.node("Div", [t2, g.init(np.array(float(area * 4)))])
    t4 = g.node("Floor", [t3])
    y3 = floordiv(s * 3, area * 4)  # at most 191: no clip needed
    g.anchor(y3)
    f = g.node("Flatten", [t4], axis=1)
    w = rng.integers(-50, 51, size=(8, 4)).astype(np.int64)  # [K, N]
    mm = g.node("MatMul", [f, g.init(w)])
    g.anchor(y3.reshape(1, -1) @ w)
    out = g.node("Softmax", [mm], axis=1)
    g.outputs = [out]
    return g


def fx_rounding_bias_add():
    """A separate bias Add after the conv, float Mul/Div and a +0.5 rounding Add before Floor,
    a requantized MatMul fed by Reshape(Shape/Gather/Unsqueeze/Concat), a raw Gemm without
    transB, Sigmoid tail."""
    g = Graph("rounding_bias_add", [1, 4, 8, 8])
    c1, acc = conv(g, g.x_name, g.x, 6, (3, 3), stride=(1, 2), pads=(1, 1, 0, 2))
    b = rng.integers(-300, 300, size=6).astype(np.int64)
    t1 = g.node("Add", [c1, g.init(b.reshape(1, 6, 1, 1))])
    t = acc + b.reshape(1, 6, 1, 1)
    m = 13
    d = 2 * pick_divisor(t, m)
    t2 = g.node("Mul", [t1, g.const(float(m))])
    t3 = g.node("Div", [t2, g.const(float(d))])
    t4 = g.node("Add", [t3, g.const(0.5)])
    t5 = g.node("Floor", [t4])
    y = floordiv(2 * t * m + d, 2 * d)  # floor(t*m/d + 1/2)
    out = g.node("Clip", [t5], min=0.0, max=255.0)
    y = np.clip(y, 0, 255)
    g.anchor(y)
    # x.view(x.size(0), -1)
    shp = g.node("Shape", [out])
    n0 = g.node("Gather", [shp, g.const(0, np.int64)], axis=0)
    u0 = g.node("Unsqueeze", [n0], axes=[0])
    cat = g.node("Concat", [u0, g.const([-1], np.int64)], axis=0)
    r = g.node("Reshape", [out, cat])
    flat = y.reshape(1, -1)
    w = rng.integers(-10, 11, size=(flat.shape[1], 12)).astype(np.int64)
    mm = g.node("MatMul", [r, g.init(w)])
    acc2 = flat @ w
    m2 = 5
    d2 = pick_divisor(acc2, m2)
    q1 = g.node("Mul", [mm, g.const(float(m2))])
    q2 = g.node("Div", [q1, g.const(float(d2))])
    q3 = g.node("Floor", [q2])
    q4 = g.node("Relu", [q3])
    y2 = np.minimum(np.maximum(floordiv(acc2 * m2, d2), 0), 255)
    q5 = g.node("Clip", [q4], min=0.0, max=255.0)
    g.anchor(y2)
    w2 = rng.integers(-40, 41, size=(12, 3)).astype(np.int64)
    b2 = rng.integers(-100, 100, size=3).astype(np.int64)
    fc = g.node("Gemm", [q5, g.init(w2), g.init(b2)])
    g.anchor(y2 @ w2 + b2)
    out = g.node("Sigmoid", [fc])
    g.outputs = [out]
    return g


def fx_residuals():
    """Residual Adds: per-input Mul + Add + Div/Floor (NEMO), requantization attributes on the
    Add node, and a plain Add followed by a Clip; a 1x1 stride-2 shortcut conv."""
    g = Graph("residuals", [1, 4, 8, 8])
    c0, a0 = conv(g, g.x_name, g.x, 8, (3, 3), pads=(1, 1, 1, 1))
    y0n, y0 = nemo_requant(g, c0, a0, *bn(8))
    g.anchor(y0)
    c1, a1 = conv(g, y0n, y0, 8, (3, 3), pads=(1, 1, 1, 1))
    y1n, y1 = nemo_requant(g, c1, a1, *bn(8))
    g.anchor(y1)
    # NEMO residual: Mul(x1, 3) + Mul(x0, 5) -> Div 8 -> Floor -> Clip
    m1 = g.node("Mul", [y1n, g.const(3.0)])
    m0 = g.node("Mul", [y0n, g.const(5.0)])
    s = g.node("Add", [m1, m0])
    dv = g.node("Div", [s, g.const(8.0)])
    fl = g.node("Floor", [dv])
    a = g.node("Clip", [fl], min=0.0, max=255.0)
    ya = np.clip(floordiv(y1 * 3 + y0 * 5, 8), 0, 255)
    g.anchor(ya)
    # Shortcut 1x1 stride 2 and a strided 3x3, joined by an Add with requant attributes.
    c2, a2 = conv(g, a, ya, 8, (3, 3), stride=(2, 2), pads=(1, 1, 1, 1))
    y2n, y2 = nemo_requant(g, c2, a2, *bn(8))
    g.anchor(y2)
    c3, a3 = conv(g, a, ya, 8, (1, 1), stride=(2, 2))
    y3n, y3 = nemo_requant(g, c3, a3, *bn(8))
    g.anchor(y3)
    ra = g.fresh()
    g.nodes.append(helper.make_node("Add", [y2n, y3n], [ra], in1_mul=3, in1_add=4, in1_shift=2,
                                    in2_mul=5, in2_add=-8, in2_shift=3, out_rq=1))
    r1 = np.clip((y2 * 3 + 4) >> 2, 0, 255)
    r2 = np.clip((y3 * 5 - 8) >> 3, 0, 255)
    yb = np.clip(r1 + r2, 0, 255)
    g.anchor(yb)
    # A plain Add (no rescale) with a Clip after it.
    c4, a4 = conv(g, ra, yb, 8, (3, 3), pads=(1, 1, 1, 1))
    y4n, y4 = nemo_requant(g, c4, a4, *bn(8))
    g.anchor(y4)
    p = g.node("Add", [y4n, ra])
    pc = g.node("Clip", [p], min=0.0, max=255.0)
    yp = np.clip(y4 + yb, 0, 255)
    g.anchor(yp)
    # AveragePool 2x2, NEMO-style constants.
    ap = g.node("AveragePool", [pc], kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 0, 0])
    t1 = g.node("Mul", [ap, g.const(4.0)])
    t2 = g.node("Mul", [t1, g.const(9.0)])
    t3 = g.node("Div", [t2, g.const(32.0)])
    t4 = g.node("Floor", [t3])
    t5 = g.node("Clip", [t4], min=0.0, max=255.0)
    yq = np.clip(floordiv(pool_np(yp, (2, 2), (2, 2), "avg") * 9, 32), 0, 255)
    g.anchor(yq)
    f = g.node("Flatten", [t5], axis=1)
    w = rng.integers(-10, 11, size=(4, yq.size)).astype(np.int64)
    fc = g.node("Gemm", [f, g.init(w)], transB=1)
    g.anchor(yq.reshape(1, -1) @ w.T)
    g.outputs = [fc]
    return g


def fx_tcn_1d():
    """1-D (TCN-style) network: rank-3 tensors, a causal Pad, Conv1d with stride, MaxPool1d,
    AveragePool1d, GlobalAveragePool, and a Gemm; 1-D maps to H = 1."""
    g = Graph("tcn_1d", [1, 3, 32])

    def c1d(x_name, x, cout, k, stride=1, pads=(0, 0)):
        w = rng.integers(-20, 21, size=(cout, x.shape[1], k)).astype(np.int64)
        out = g.node("Conv", [x_name, g.init(w)], kernel_shape=[k], strides=[stride],
                     pads=list(pads), dilations=[1], group=1)
        acc = conv_np(x[:, :, None, :], w[:, :, None, :], (1, stride), (0, 0) + tuple(pads), 1)
        return out, acc[:, :, 0, :]

    p = g.node("Pad", [g.x_name], mode="constant", pads=[0, 0, 2, 0, 0, 0], value=0.0)
    xp = np.pad(g.x, ((0, 0), (0, 0), (2, 0)))
    c1, a1 = c1d(p, xp, 8, 3)
    y1n, y1 = nemo_requant(g, c1, a1, *bn(8))
    g.anchor(y1)
    c2, a2 = c1d(y1n, y1, 8, 3, stride=2, pads=(1, 1))
    y2n, y2 = nemo_requant(g, c2, a2, *bn(8), int64_path=False)
    g.anchor(y2)
    mp = g.node("MaxPool", [y2n], kernel_shape=[2], strides=[2])
    y3 = pool_np(y2[:, :, None, :], (1, 2), (1, 2), "max")[:, :, 0, :]
    g.anchor(y3)
    ap = g.node("AveragePool", [mp], kernel_shape=[2], strides=[1])
    t1 = g.node("Mul", [ap, g.const(2.0)])
    t2 = g.node("Floor", [g.node("Div", [t1, g.const(2.0)])])
    y4 = floordiv(pool_np(y3[:, :, None, :], (1, 2), (1, 1), "avg")[:, :, 0, :], 2)
    g.anchor(y4)
    gp = g.node("GlobalAveragePool", [t2])
    L = y4.shape[2]
    t3 = g.node("Mul", [gp, g.const(float(L))])
    t4 = g.node("Floor", [g.node("Div", [t3, g.const(float(L))])])
    y5 = floordiv(y4.sum(axis=2, keepdims=True), L)
    g.anchor(y5)
    f = g.node("Flatten", [t4], axis=1)
    w = rng.integers(-10, 11, size=(3, 8)).astype(np.int64)
    fc = g.node("Gemm", [f, g.init(w)], transB=1)
    g.anchor(y5.reshape(1, -1) @ w.T)
    g.outputs = [fc]
    return g


def fx_eegnet():
    """EEGNet-style: a temporal conv (1 x K), a depthwise spatial conv (C x 1) with a channel
    multiplier of 2 (group = channels, twice as many outputs), AveragePool (1 x 4), a separable
    conv (depthwise 1 x K + pointwise), Flatten -> Gemm."""
    g = Graph("eegnet", [1, 1, 4, 32])
    c1, a1 = conv(g, g.x_name, g.x, 4, (1, 5), pads=(0, 0, 2, 2))
    y1n, y1 = nemo_requant(g, c1, a1, *bn(4))
    g.anchor(y1)
    c2, a2 = conv(g, y1n, y1, 8, (4, 1), group=4)
    y2n, y2 = nemo_requant(g, c2, a2, *bn(8))
    g.anchor(y2)
    ap = g.node("AveragePool", [y2n], kernel_shape=[1, 4], strides=[1, 4])
    t1 = g.node("Floor", [g.node("Div", [g.node("Mul", [ap, g.const(4.0)]), g.const(4.0)])])
    y3 = floordiv(pool_np(y2, (1, 4), (1, 4), "avg"), 4)
    g.anchor(y3)
    c3, a3 = conv(g, t1, y3, 8, (1, 3), pads=(0, 0, 1, 1), group=8)
    y4n, y4 = nemo_requant(g, c3, a3, *bn(8))
    g.anchor(y4)
    c4, a4 = conv(g, y4n, y4, 8, (1, 1))
    y5n, y5 = nemo_requant(g, c4, a4, *bn(8))
    g.anchor(y5)
    f = g.node("Flatten", [y5n], axis=1)
    w = rng.integers(-10, 11, size=(3, y5.size)).astype(np.int64)
    fc = g.node("Gemm", [f, g.init(w)], transB=1)
    g.anchor(y5.reshape(1, -1) @ w.T)
    g.outputs = [fc]
    return g


def fx_maxmin_cast():
    """Clip written as Max(x, 0) -> Min(x, 63) (6-bit), an integer Div on int64 without Floor,
    and a Cast to uint8 after the clip."""
    g = Graph("maxmin_cast", [1, 3, 7, 7])
    c1, a1 = conv(g, g.x_name, g.x, 5, (3, 3), pads=(1, 1, 1, 1))
    d = 1 << max(0, int(np.ceil(np.log2(max(1.0, np.percentile(np.abs(a1), 95) / 63)))))
    t = g.node("Floor", [g.node("Div", [c1, g.const(float(d))])])
    t = g.node("Min", [g.node("Max", [t, g.const(0.0)]), g.const(63.0)])
    y1 = np.clip(floordiv(a1, d), 0, 63)
    g.anchor(y1)
    c2, a2 = conv(g, t, y1, 4, (1, 1))
    m = 7
    d2 = pick_divisor(a2, m)
    t = g.node("Cast", [c2], to=TensorProto.INT64)
    t = g.node("Div", [g.node("Mul", [t, g.const([m], np.int64)]), g.const([d2], np.int64)])
    t = g.node("Clip", [g.node("Cast", [t], to=TensorProto.FLOAT)], min=0.0, max=255.0)
    t = g.node("Cast", [t], to=TensorProto.UINT8)
    y2 = np.clip(truncdiv(a2 * m, d2), 0, 255)
    g.anchor(y2)
    t = g.node("Cast", [t], to=TensorProto.FLOAT)
    f = g.node("Flatten", [t], axis=1)
    w = rng.integers(-10, 11, size=(2, y2.size)).astype(np.int64)
    fc = g.node("Gemm", [f, g.init(w)], transB=1)
    g.anchor(y2.reshape(1, -1) @ w.T)
    g.outputs = [fc]
    return g


VALID = [fx_nemo_pad_bias, fx_quantlab_4bit, fx_rounding_bias_add, fx_residuals, fx_tcn_1d,
         fx_eegnet, fx_maxmin_cast]

# ---------------------------------------------------------------------------------------------
# Invalid fixtures: (name, builder, regex the error must match)


def small(name, conv_attrs=None, weights=None, extra=None, opset=9):
    g = Graph(name, [1, 4, 6, 6], opset=opset)
    w = weights if weights is not None else rng.integers(-5, 6, size=(4, 4, 3, 3)).astype(np.float32)
    attrs = dict(kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], group=1)
    attrs.update(conv_attrs or {})
    c = g.node("Conv", [g.x_name, g.init(w)], **attrs)
    y = g.node("Clip", [g.node("Floor", [g.node("Div", [c, g.const(64.0)])])], min=0.0, max=255.0)
    if extra:
        y = extra(g, y)
    g.outputs = [y]
    return g


def bad_dilation():
    return small("bad_dilation", {"dilations": [0, 2]})


def bad_groups():
    return small("bad_groups", {"group": 2},
                 weights=rng.integers(-5, 6, size=(4, 2, 3, 3)).astype(np.float32))


def bad_weight():
    w = rng.integers(-5, 6, size=(4, 4, 3, 3)).astype(np.float32)
    w[1, 2, 0, 0] = 0.5
    return small("bad_weight", weights=w)


def bad_constant():
    return small("bad_constant", extra=lambda g, y: g.node(
        "Clip", [g.node("Floor", [g.node("Mul", [g.node("Conv", [y, g.init(
            rng.integers(-5, 6, size=(4, 4, 1, 1)).astype(np.float32))], kernel_shape=[1, 1]),
            g.const(0.3)])])], min=0.0, max=255.0))


def bad_dangling():
    return small("bad_dangling", extra=lambda g, y: g.node("Add", [y, "nowhere"]))


def bad_op():
    return small("bad_op", extra=lambda g, y: g.node("Tanh", [y]))


def bad_ceil():
    return small("bad_ceil", extra=lambda g, y: g.node("MaxPool", [y], kernel_shape=[2, 2],
                                                       strides=[2, 2], ceil_mode=1))


def bad_pad_mode():
    return small("bad_pad_mode", extra=lambda g, y: g.node("Pad", [y], mode="reflect",
                                                           pads=[0, 0, 1, 1, 0, 0, 1, 1]))


def bad_broadcast():
    # A [4] constant broadcasts along the last (width) axis, not the channels.
    return small("bad_broadcast", extra=lambda g, y: g.node("Clip", [g.node("Floor", [g.node(
        "Mul", [g.node("Conv", [y, g.init(rng.integers(-5, 6, size=(6, 4, 1, 1)).astype(
            np.float32))], kernel_shape=[1, 1]), g.init(np.arange(1, 7).astype(np.float32))])])],
        min=0.0, max=255.0))


def conv_then(name, chain):
    """A conv whose output goes through `chain(g, tensor)`, then into a second conv."""
    g = Graph(name, [1, 4, 6, 6])
    c = g.node("Conv", [g.x_name, g.init(rng.integers(-5, 6, size=(4, 4, 3, 3)).astype(
        np.float32))], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    y = chain(g, c)
    g.outputs = [g.node("Conv", [y, g.init(rng.integers(-5, 6, size=(2, 4, 1, 1)).astype(
        np.float32))], kernel_shape=[1, 1])]
    return g


def bad_double_round():
    return conv_then("bad_double_round", lambda g, c: g.node("Clip", [g.node("Floor", [g.node(
        "Div", [g.node("Mul", [g.node("Floor", [g.node("Div", [c, g.const(3.0)])]),
                               g.const(5.0)]), g.const(7.0)])])], min=0.0, max=255.0))


def bad_unclipped():
    return conv_then("bad_unclipped", lambda g, c: g.node("Floor", [g.node("Div", [
        c, g.const(16.0)])]))


def bad_fraction():
    return conv_then("bad_fraction", lambda g, c: g.node("Clip", [g.node("Div", [
        c, g.const(3.0)])], min=0.0, max=255.0))


def bad_trunc_offset():
    def chain(g, c):
        t = g.node("Cast", [c], to=TensorProto.INT64)
        t = g.node("Div", [t, g.const([3], np.int64)])  # truncates
        t = g.node("Cast", [t], to=TensorProto.FLOAT)
        t = g.node("Floor", [g.node("Div", [g.node("Add", [t, g.const(2.0)]), g.const(4.0)])])
        return g.node("Clip", [t], min=0.0, max=255.0)
    return conv_then("bad_trunc_offset", chain)


INVALID = [
    (bad_trunc_offset, r"Floor.*offset after a truncating division"),
    (bad_double_round, r"two successive requantizations"),
    (bad_unclipped, r"Conv.*not clipped to an 8-bit range"),
    (bad_fraction, r"Clip.*not an integer"),
    (bad_broadcast, r"Mul.*does not broadcast along the channel axis"),
    (bad_dilation, r"Conv.*bad dilation 0"),
    (bad_groups, r"Conv.*group 2"),
    (bad_weight, r"Conv.*weight 0\.5.* not an 8-bit signed integer"),
    (bad_constant, r"Mul.*not an integer"),
    (bad_dangling, r"Add.*dangling tensor 'nowhere'"),
    (bad_op, r"Tanh.*unsupported op"),
    (bad_ceil, r"MaxPool.*ceil_mode"),
    (bad_pad_mode, r"Pad.*constant padding"),
]


# Malformed cousins of the patterns recognized by meaning (bit-width attributes, opset-11 input
# forms, pass-through nodes), each refused with the node, its op and the reason. Built after the
# fixtures above from their own generator, so those stay as they were.
prng = np.random.default_rng(20261126)


def quant_small(name, conv_attrs=None, weights=None, clip=None, mid=None, opset=9):
    """A conv, Mul 3, Add 5, Div 64, Floor, Clip: `mid(g, t)` may rewrite the tensor before the
    Clip, `clip(g, t)` replaces the Clip."""
    g = Graph(name, [1, 4, 6, 6], opset=opset)
    w = weights if weights is not None else prng.integers(-5, 6, size=(4, 4, 3, 3)).astype(
        np.float32)
    attrs = dict(kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], group=1)
    attrs.update(conv_attrs or {})
    c = g.node("Conv", [g.x_name, g.init(w)], **attrs)
    t = g.node("Floor", [g.node("Div", [g.node("Add", [g.node("Mul", [c, g.const(3.0)]),
                                                       g.const(5.0)]), g.const(64.0)])])
    if mid:
        t = mid(g, t)
    g.outputs = [clip(g, t) if clip else g.node("Clip", [t], min=0.0, max=255.0)]
    return g


def bad_weight_bits():
    w = prng.integers(-2, 2, size=(4, 4, 3, 3)).astype(np.float32)
    w[2, 1, 1, 1] = 5.0  # outside the 2-bit range -2..1
    return quant_small("bad_weight_bits", {"weight_bits": 2}, weights=w)


def bad_weight_bits8():
    w = prng.integers(-5, 6, size=(4, 4, 3, 3)).astype(np.float32)
    w[0, 0, 0, 0] = 200.0
    return quant_small("bad_weight_bits8", {"weight_bits": 8, "bias_bits": 32}, weights=w)


def bad_bits_value():
    return quant_small("bad_bits_value", {"weight_bits": 0})


def bad_out_bits():
    return quant_small("bad_out_bits", clip=lambda g, t: g.node("Clip", [t], min=0.0, max=255.0,
                                                                 out_bits=4))


def bad_mult_bits():
    def mid(g, t):
        return g.node("Floor", [g.node("Mul", [g.const(300.0), t], mult_bits=8)])
    return quant_small("bad_mult_bits", mid=mid)


def bad_add_bits():
    def mid(g, t):
        return g.node("Add", [g.const(-70000.0), t], add_bits=16)
    return quant_small("bad_add_bits", mid=mid)


def bad_unknown_attr():
    return quant_small("bad_unknown_attr", clip=lambda g, t: g.node("Clip", [t], min=0.0,
                                                                     max=255.0, scale_bits=8))


def bad_clip_bound_vector():
    return quant_small("bad_clip_bound_vector", opset=11, clip=lambda g, t: g.node(
        "Clip", [t, g.const([0.0, 1.0]), g.const(255.0)]))


def bad_clip_bound_activation():
    return quant_small("bad_clip_bound_activation", opset=11, clip=lambda g, t: g.node(
        "Clip", [t, g.x_name, g.const(255.0)]))


def bad_pad_input():
    return quant_small("bad_pad_input", opset=11, clip=lambda g, t: g.node("Pad", [
        g.node("Clip", [t, g.const(0.0), g.const(255.0)]), g.const([0, 1, 1, 0], np.int64)]))


def bad_dropout_training():
    return quant_small("bad_dropout_training", opset=12, mid=lambda g, t: g.node(
        "Dropout", [t, g.const(0.5), g.const(True, np.bool_)]))


def bad_reshape():
    return quant_small("bad_reshape", clip=lambda g, t: g.node("Reshape", [
        g.node("Clip", [t], min=0.0, max=255.0), g.const([1, 4, 36], np.int64)]))


def bad_pool_dilation():
    return quant_small("bad_pool_dilation", clip=lambda g, t: g.node("MaxPool", [
        g.node("Clip", [t], min=0.0, max=255.0)], kernel_shape=[2, 2], dilations=[2, 2]))


def bad_dilations_length():
    return quant_small("bad_dilations_length", {"dilations": [2]})


def bad_cast_type():
    return quant_small("bad_cast_type", mid=lambda g, t: g.node("Cast", [t],
                                                                 to=TensorProto.STRING))


INVALID_PATTERNS = [
    (bad_weight_bits, r"Conv.*weight 5 leaves the range -2\.\.1 of weight_bits 2"),
    (bad_weight_bits8, r"Conv.*weight 200 leaves the range -128\.\.127 of weight_bits 8"),
    (bad_bits_value, r"Conv.*'weight_bits' = 0 is not a bit width"),
    (bad_out_bits, r"Clip.*bounds \[0, 255\] do not fit out_bits 4"),
    (bad_mult_bits, r"Mul.*factor 300 leaves the range -128\.\.127 of mult_bits 8"),
    (bad_add_bits, r"Add.*addend -70000 leaves the range -32768\.\.32767 of add_bits 16"),
    (bad_unknown_attr, r"Clip.*unsupported attribute 'scale_bits'"),
    (bad_clip_bound_vector, r"Clip.*bound .* holds 2 values, a scalar is expected"),
    (bad_clip_bound_activation, r"Clip.*must be a constant"),
    (bad_pad_input, r"Pad.*'pads' must have 8 entries"),
    (bad_dropout_training, r"Dropout.*training mode"),
    (bad_reshape, r"Reshape.*only a Reshape to \[1, -1\]"),
    (bad_cast_type, r"Cast.*data type 8 is not supported"),
    (bad_pool_dilation, r"MaxPool.*unsupported attribute: dilation 2"),
    (bad_dilations_length, r"Conv.*'dilations' has 1 entries, 2 expected"),
]


def fx_pad_kernel():
    """A 2x2 stride-2 conv with padding 2 on every side (as large as the kernel): output rows
    and columns that lie wholly in the padding are bias + requantization only."""
    g = Graph("pad_kernel", [1, 3, 6, 6])
    x = g.x
    c, acc = conv(g, g.x_name, x, 4, (2, 2), stride=(2, 2), pads=(2, 2, 2, 2), bias=True)
    kappa, lam = prng.integers(1, 8, size=4), prng.integers(-50, 50, size=4)
    y, v = nemo_requant(g, c, acc, kappa.astype(np.int64), lam.astype(np.int64))
    g.anchor(v)
    g.outputs = [y]
    return g


def fx_multi_vector(root, name="multi_vector", vectors=3, corrupt=None):
    """Several test vectors in DORY's multi-input layout (input_K.txt, out_K_layerJ.txt,
    output_K.txt): conv 3x3 + requant, MaxPool 2x2, conv 1x1 + requant, Flatten, Gemm (int32,
    the graph output). The expected values of every vector are computed here in numpy."""
    vr = np.random.default_rng(20261127)
    g = Graph(name, [1, 3, 8, 8])
    w1 = vr.integers(-6, 7, size=(5, 3, 3, 3)).astype(np.int64)
    w2 = vr.integers(-6, 7, size=(4, 5, 1, 1)).astype(np.int64)
    wf = vr.integers(-20, 21, size=(6, 4 * 4 * 4)).astype(np.int64)
    bf = vr.integers(-500, 500, size=6).astype(np.int64)

    def requant(x_name, mul, add, div):
        t = g.node("Floor", [g.node("Div", [g.node("Add", [g.node("Mul", [
            g.const(float(mul)), x_name]), g.const(float(add))]), g.const(float(div))])])
        return g.node("Clip", [t], min=0.0, max=255.0)

    c1 = g.node("Conv", [g.x_name, g.init(w1)], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    r1 = requant(c1, 3, 40, 32)
    p = g.node("MaxPool", [r1], kernel_shape=[2, 2], strides=[2, 2])
    c2 = g.node("Conv", [p, g.init(w2)], kernel_shape=[1, 1])
    r2 = requant(c2, 5, -7, 64)
    f = g.node("Flatten", [r2], axis=1)
    fc = g.node("Gemm", [f, g.init(wf), g.init(bf)], transB=1)
    g.outputs = [fc]
    d = g.save(root)
    for f_ in os.listdir(d):
        if f_.startswith("out_layer") or f_ == "input.txt":
            os.remove(os.path.join(d, f_))
    for k in range(vectors):
        x = vr.integers(0, 256, size=(1, 3, 8, 8)).astype(np.int64)
        y1 = np.clip(floordiv(3 * conv_np(x, w1, (1, 1), (1, 1, 1, 1), 1) + 40, 32), 0, 255)
        y2 = pool_np(y1, (2, 2), (2, 2), "max")
        y3 = np.clip(floordiv(5 * conv_np(y2, w2, (1, 1), (0, 0, 0, 0), 1) - 7, 64), 0, 255)
        y4 = y3.reshape(1, -1) @ wf.T + bf  # ONNX flatten order (CHW)
        outs = [y1, y2, y3, y4]
        if corrupt is not None and corrupt[0] == k:
            outs[corrupt[1]] = outs[corrupt[1]].copy()
            outs[corrupt[1]].reshape(-1)[3] += 1
        write_values(os.path.join(d, "input_%d.txt" % k), "# # input_%d (shape [8, 8, 3])" % k,
                     hwc(x))
        for j, v in enumerate(outs):
            write_values(os.path.join(d, "out_%d_layer%d.txt" % (k, j)), "# # layer%d" % j,
                         hwc(v))
        write_values(os.path.join(d, "output_%d.txt" % k), "# # output_%d" % k, y4.reshape(-1))


def dilate(w, dh, dw):
    """A kernel with (d - 1) zeros between taps: the dilated convolution as a dense one."""
    o, c, kh, kw = w.shape
    z = np.zeros((o, c, (kh - 1) * dh + 1, (kw - 1) * dw + 1), dtype=w.dtype)
    z[:, :, ::dh, ::dw] = w
    return z


def fx_dilated():
    """Dilated convolutions: 2-D 3x3 with dilation (2, 3) and padding (2, 3) (as large as the
    kernel), depthwise 3x3 dilation 2, and a 1-D-style 1x3 with dilation 4 (TCN). Expected
    values from dense convolutions with zero-stuffed kernels."""
    dr = np.random.default_rng(20261128)
    g = Graph("dilated", [1, 3, 12, 14])

    def dconv(x_name, x, cout, k, dil, pads=(0, 0, 0, 0), group=1):
        cin = x.shape[1]
        w = dr.integers(-9, 10, size=(cout, cin // group, k[0], k[1])).astype(np.int64)
        t, b, l, r = pads
        out = g.node("Conv", [x_name, g.init(w)], kernel_shape=list(k), pads=[t, l, b, r],
                     dilations=list(dil), group=group)
        return out, conv_np(x, dilate(w, *dil), (1, 1), pads, group)

    def rq(x_name, acc):
        c = acc.shape[1]
        kappa = dr.integers(1, 6, size=c).astype(np.int64)
        lam = dr.integers(-100, 100, size=c).astype(np.int64)
        return nemo_requant(g, x_name, acc, kappa, lam)

    c1, a1 = dconv(g.x_name, g.x, 6, (3, 3), (2, 3), pads=(2, 2, 3, 3))
    y1n, y1 = rq(c1, a1)
    g.anchor(y1)
    c2, a2 = dconv(y1n, y1, 6, (3, 3), (2, 2), pads=(2, 2, 2, 2), group=6)
    y2n, y2 = rq(c2, a2)
    g.anchor(y2)
    c3, a3 = dconv(y2n, y2, 4, (1, 3), (1, 4), pads=(0, 0, 8, 0))
    y3n, y3 = rq(c3, a3)
    g.anchor(y3)
    g.outputs = [y3n]
    return g


def fx_wide_sum(root, name, saturate):
    """A residual Mul(32) -> Add -> Div(32) -> Floor with no Clip whose sum exceeds 255 (two
    branches near 200): the golden holds the true sums (up to 510), or, for the saturating
    variant, DORY's sums saturated to 255. Then a 1x1 conv reads the (wide or saturated) sum."""
    wr = np.random.default_rng(20261129)
    g = Graph(name, [1, 2, 4, 4])
    g.x = wr.integers(150, 256, size=(1, 2, 4, 4)).astype(np.int64)

    def branch(scale):
        w = np.zeros((2, 2, 1, 1), dtype=np.int64)
        w[0, 0, 0, 0], w[1, 1, 0, 0] = scale, scale
        c = g.node("Conv", [g.x_name, g.init(w)], kernel_shape=[1, 1])
        y = g.node("Clip", [g.node("Floor", [g.node("Div", [c, g.const(4.0)])])], min=0.0,
                   max=255.0)
        return y, np.clip(floordiv(conv_np(g.x, w, (1, 1), (0, 0, 0, 0), 1), 4), 0, 255)

    a, ya = branch(5)
    g.anchor(ya)
    b, yb = branch(4)
    g.anchor(yb)
    sm = g.node("Add", [g.node("Mul", [a, g.const(32.0)]), g.node("Mul", [b, g.const(32.0)])])
    s_ = g.node("Floor", [g.node("Div", [sm, g.const(32.0)])])
    ys = floordiv(ya * 32 + yb * 32, 32)
    assert ys.max() > 255, "the fixture's sums must exceed 8 bits"
    if saturate:
        ys = np.clip(ys, 0, 255)
    g.anchor(ys)
    w = wr.integers(-3, 4, size=(3, 2, 1, 1)).astype(np.int64)
    c = g.node("Conv", [s_, g.init(w)], kernel_shape=[1, 1])
    y = g.node("Clip", [g.node("Floor", [g.node("Div", [g.node("Add", [c, g.const(600.0)]),
                                                          g.const(8.0)])])], min=0.0, max=255.0)
    g.anchor(np.clip(floordiv(conv_np(ys, w, (1, 1), (0, 0, 0, 0), 1) + 600, 8), 0, 255))
    g.outputs = [y]
    g.save(root)


def main():
    root = sys.argv[1]
    os.makedirs(root, exist_ok=True)
    names = []
    for f in VALID:
        g = f()
        g.save(root)
        names.append(g.name)
    for f, rx in INVALID:
        g = f()
        d = g.save(root)
        with open(os.path.join(d, "expect.txt"), "w") as fh:
            fh.write(rx + "\n")
    # A truncated file and a file of random bytes.
    src = os.path.join(root, "residuals", "model_int.onnx")
    data = open(src, "rb").read()
    for name, blob in (("bad_truncated", data[: len(data) // 2]),
                       ("bad_garbage", bytes(rng.integers(0, 256, size=4096, dtype=np.uint8)))):
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "model_int.onnx"), "wb").write(blob)
        open(os.path.join(d, "expect.txt"), "w").write(
            r"malformed or truncated|dangling|no graph|not a valid" + "\n")
    # A valid network whose golden has one wrong value: verification must fail.
    d = os.path.join(root, "corrupt_golden")
    g = fx_residuals()
    g.name = "corrupt_golden"
    g.goldens[2] = g.goldens[2].copy()
    g.goldens[2].reshape(-1)[5] += 1
    g.save(root)
    # A golden file that no layer maps to (the graph has fewer anchors): must fail too.
    g = fx_tcn_1d()
    g.name = "extra_golden"
    g.goldens.append(g.goldens[-1])
    g.save(root)
    # The input written channel-first (a quirk of some exports): must still verify.
    g = fx_residuals()
    g.name = "chw_input"
    d = g.save(root)
    write_values(os.path.join(d, "input.txt"), "# input (shape %s)" % list(g.in_shape),
                 g.x.reshape(-1))
    for f, rx in INVALID_PATTERNS:
        g = f()
        d = g.save(root)
        with open(os.path.join(d, "expect.txt"), "w") as fh:
            fh.write(rx + "\n")
    fx_pad_kernel().save(root)
    fx_dilated().save(root)
    fx_wide_sum(root, "wide_sum", saturate=False)
    fx_wide_sum(root, "wide_sum_saturated", saturate=True)
    fx_multi_vector(root)
    fx_multi_vector(root, "multi_vector_corrupt", corrupt=(1, 2))
    # A golden numbering that skips a layer: an extra file (of another size) between layers 1 and
    # 2, the later files numbered one higher. Aligned by order and element count, all verify.
    g = fx_tcn_1d()
    g.name = "skip_golden"
    d = g.save(root)
    for k in range(len(g.goldens) - 1, 1, -1):
        os.rename(os.path.join(d, "out_layer%d.txt" % k), os.path.join(d, "out_layer%d.txt" % (k + 1)))
    write_values(os.path.join(d, "out_layer2.txt"), "extra (shape [7])", np.arange(7))
    print("wrote %d valid, %d invalid fixtures to %s" %
          (len(names) + 1, len(INVALID) + len(INVALID_PATTERNS) + 2, root))


if __name__ == "__main__":
    main()
