"""NVIDIA's special-function unit (MUFU) as measured on an H100: the bit-exact f32 sine, cosine and
base-2 exponential of ``sin.approx.f32`` / ``cos.approx.f32`` / ``ex2.approx.f32`` (and so ``__sinf``,
``__cosf``, ``__sincosf``, ``__expf``, cuRAND's float normals).

How the hardware computes them (scripts/make_mufu_tables.py recorded all 2^25 turn fractions;
scripts/make_mufu_fit.py finds the table below and checks it reproduces every one):

1. ptxas reduces the argument to turns with ``FMUL.RZ t = x * f32(1/2pi)`` (0x3E22F983), then
   ``MUFU.SIN/COS`` keeps ``k = floor(frac(|t|) * 2^25)``: 2 quadrant bits and a 23-bit offset ``r``.
2. cos is sin one quadrant on (k + 2^23). Odd quadrants mirror the offset as its one's complement
   (``r ^ (2^23 - 1)``, so the quadrant points give exactly 1 and 0); quadrants 2 and 3 negate.
3. Within a quadrant, 64 segments of 2^17 points: ``R = C0 + C1*xl - C2n*(tsq(xl) >> 19)`` in units of
   2^-37, where xl is the 17-bit offset in the segment and ``tsq`` is xl^2 with the partial products
   of weight below 2^19 left out (a truncated squarer); then R is truncated to f32 (round toward zero).
4. The sign is the quadrant's, xor the argument's for sin (sin is odd, cos even, bit for bit, -0
   included); a NaN or infinite argument gives the canonical NaN.

``SIN_SEGMENTS`` packs each segment's coefficients in one 63-bit word: C0 (bits 0-36), C1 (37-51),
C2n (52-62).

ex2 (``ex2_bits``): |x| goes to fixed point with 23 fraction bits (truncated); a negative argument
takes the one's complement of that magnitude (so 2^-i exactly for an integral -i); the fraction goes
through the same interpolator with the ``EX2`` table (R in units 2^-39, truncated to the 23-bit
mantissa), the integer part is the exponent (beyond the range: inf / +0). ptxas wraps MUFU.EX2 for the
non-ftz instruction: an argument below -126 is halved and the result squared (subnormal results).
Reproduces all 4 x 2^23 recorded arguments in [-4, -1] and [0.5, 2) and 2 x 65,536 random ones.

``sincos_bits`` / ``ex2_bits`` are the reference; the legalization rule ``approx.mufu``
(passes/legalize/rules/approx_mufu.py) emits the same integer steps for every other backend.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TURN = 0x3E22F983  # f32(1/(2 pi)) as ptxas multiplies by it
SEG_BITS, XL_BITS, SQ_DROP = 6, 17, 19
C0_BITS, C1_BITS = 37, 15
SCALE_EXP = 37  # R is in units of 2^-37


@dataclass(frozen=True)
class Field:
    """One coefficient in a packed segment word: value = ((word >> pos) & (2^bits - 1)) << shift + bias;
    ``word`` 1 reads the table's second word list (``Interp.words2``)."""
    pos: int
    bits: int
    shift: int = 0
    bias: int = 0
    word: int = 0


@dataclass(frozen=True)
class Interp:
    """A MUFU table: segment i = r >> 17 of a 23-bit offset r, xl = r & (2^17 - 1),
    R = C0 + C1*xl + c2_sign*C2*(tsq(xl) >> 19)."""
    words: tuple[int, ...]
    c0: Field
    c1: Field
    c2: Field
    c2_sign: int
    words2: tuple[int, ...] = ()
    xl_bits: int = 17  # a shorter xl is left-aligned to 17 bits for the squarer


SIN_SEGMENTS = (
    0x00EC912000000000, 0x030C9040C90A7000, 0x04CC8D4191F64000, 0x06EC88825AA3E000,
    0x089C81A322F4A000, 0x0ABC7903EAC9A000, 0x0C9C6E64B203D000, 0x0E5C61C57884E000,
    0x106C53663E2DD000, 0x124C430702E08000, 0x142C30C7C67E4000, 0x160C1CA888E92000,
    0x17DC06A94A02F000, 0x19ABEECA09AE5000, 0x1B9BD52AC7CD1000, 0x1D6BB9AB84426000,
    0x1F1B9C4C3EF15000, 0x20DB7D2CF7BCB000, 0x229B5C4DAE87F000, 0x245B39AE63374000,
    0x260B154F15AEA000, 0x27DAEF4FC5D24000, 0x298AC79073876000, 0x2B0A9E111EB36000,
    0x2CBA7311C73B0000, 0x2E2A46526D054000, 0x2FBA18130FF7E000, 0x3169E853AFFA2000,
    0x32C9B6F44CF2F000, 0x34798434E6CA9000, 0x35B94FD57D690000, 0x37191A1610B72000,
    0x3888E2F6A09E5000, 0x39E8AA772D082000, 0x3B287097B5DF2000, 0x3C7835783B0DF000,
    0x3DC7F918BC804000, 0x3EC7BB593A226000, 0x40177C99B3E02000, 0x41373C9A29A79000,
    0x4236FB7A9B660000, 0x4326B93B090A7000, 0x4456761B72832000, 0x453631DBD7C09000,
    0x4635ECBC38B2C000, 0x4705A69C954B0000, 0x47C55F9CED7AE000, 0x48A517DD4134C000,
    0x4944CF3D906BD000, 0x4A1485FDDB13A000, 0x4AC43BFE2120E000, 0x4B33F13E6288F000,
    0x4BD3A5FE9F416000, 0x4C435A1ED7411000, 0x4CE30DDF0A7ED000, 0x4D42C0FF38F3C000,
    0x4DA273BF6297E000, 0x4DF2261F87650000, 0x4E21D81FA7559000, 0x4EA189FFC2647000,
    0x4EC13B7FD88D9000, 0x4EC0ECBFE9CDD000, 0x4EF09DFFF621E000, 0x4F104F1FFD886000,
)
SIN = Interp(SIN_SEGMENTS, Field(0, C0_BITS), Field(C0_BITS, C1_BITS), Field(C0_BITS + C1_BITS, 11), -1)

# 2^f for a 23-bit fraction f (MUFU.EX2): R in units 2^-39, in [2^39, 2^40); C0 - 2^39 has two trailing zeros
EX2_SEGMENTS = (
    0x0000000000003BF1, 0x01C03DC05934ABF1, 0x03007C40B361EBF1, 0x0440BB810E8A5BF1,
    0x0600FB416AB12BF1, 0x06C13C01C7D89BF1, 0x08417D422603CBF1, 0x0981BF4285359BF1,
    0x0BC201C2E570CBF1, 0x0D02454346B81BF1, 0x0E428983A90E8BF1, 0x1042CE440C775BF1,
    0x1183140470F51BF1, 0x12835A84D68B0BF1, 0x14C3A1853D3C3BF1, 0x1643E985A50B9BF1,
    0x17C432460DFC5BF1, 0x19847BC67811ABF0, 0x1A84C646E34E9BF1, 0x1CC511474FB6ABF1,
    0x1E455D47BD4CCBF1, 0x2005AA082C148BF1, 0x2145F7C89C10EBF1, 0x22C646490D459BF1,
    0x24C695897FB5DBF1, 0x2646E5C9F3651BF1, 0x284736CA6856DBF1, 0x29C788CADE8EABF1,
    0x2C07DB8B560FEBF1, 0x2DC82F4BCEDE5BF1, 0x300883CC48FDABF1, 0x3148D98CC4713BF1,
    0x3349300D413CFBF1, 0x34C9878DBF64BBF1, 0x3749DFCE3EEC1BF1, 0x38CA394EBFD6DBF1,
    0x3B0A938F42291BF1, 0x3D4AEECFC5E6ABF1, 0x3F8B4B104B137BF1, 0x40CBA890D1B36BF1,
    0x434C06D159CABBF1, 0x45CC6611E35D6BF1, 0x474CC6926E6FABF1, 0x494D2812FB057BF1,
    0x4B8D8A9389233BF1, 0x4E0DEE1418CD2BF1, 0x4FCE52D4AA079BF1, 0x520EB8953CD6DBF1,
    0x54CF1F55D13F7BF1, 0x570F87566745ABF1, 0x58CFF096FEEE1BF1, 0x5B105AD7983D6BF1,
    0x5E10C61833380BF1, 0x5FD132D8CFE2ABF1, 0x6251A0996E41FBF1, 0x64920F9A0E5ADBF1,
    0x67D27F9AB0320BF1, 0x69D2F11B53CC4BF1, 0x6BD363DBF92EABF1, 0x6F13D79CA05E0BF1,
    0x71144CDD495F8BF1, 0x7454C31DF4382BF1, 0x76D53ADEA0ECFBF1, 0x7995B3DF4F834BF0,
)
EX2 = Interp(EX2_SEGMENTS, Field(0, 37, 2, 1 << 39), Field(37, 16, 0, 45426), Field(53, 10, 0, 988), 1)
EX2_SCALE = 39


# log2(1 + f) for a 23-bit mantissa fraction f (MUFU.LG2): R in units 2^-38 (C2 negative, stored as
# -C2 - 372; the words use all 64 bits)
LG2_SEGMENTS = (
    0x8756E64000007344, 0x81D630816E79A345, 0x7CD58042D75B0344, 0x77D4D5443ACEA344,
    0x73142F4598FE5344, 0x6E538E06F2112345, 0x6A12F188462CC345, 0x6592594995753344,
    0x6191C54AE00DB344, 0x5D51354C26165344, 0x5990A94D67AF8344, 0x5610210EA4F79345,
    0x530F9C8FDE0BC345, 0x4F8F1B511307F344, 0x4C4E9D524407F344, 0x494E229371254345,
    0x460DAAD49A789344, 0x434D3615C01AB345, 0x40CCC456E2225344, 0x3DCC551800A5C345,
    0x3BCBE8D91BBAF344, 0x390B7EDA33763344, 0x368B175B47EC1344, 0x348AB25C592FE340,
    0x31CA4F5D67542344, 0x2FC9EEDE726AD344, 0x2D89905F7A85A340, 0x2BC934207FB55345,
    0x2A08D9E1820A2344, 0x2808816281945344, 0x26482AE37E62A344, 0x2447D6247883E345,
    0x230783657006D344, 0x2147322664F90345, 0x1F46E26757685344, 0x1E4694A847617345,
    0x1C86482934F10345, 0x1AC5FD2A20236345, 0x19C5B3EB0904D344, 0x18456BEBEFA03344,
    0x1685252CD4014345, 0x1544DFEDB6331344, 0x14049BEE96400344, 0x1304596F74320344,
    0x11C417F05013D344, 0x10C3D7B129EF1345, 0x0FC398B201CC9345, 0x0E835AB2D7B60345,
    0x0D031DB3ABB44345, 0x0C02E1F47DD03344, 0x0B82A7754E124344, 0x0A426DB61C826345,
    0x094234F6E9296344, 0x0841FD37B40E7345, 0x0781C6787D39B340, 0x0641907944B21344,
    0x05C15BBA0A7EF345, 0x0481277ACEA7D344, 0x03C0F43B9133A345, 0x0340C1FC52288344,
    0x0240903D118DD345, 0x01805F7DCF693344, 0x00C02F7E8BC15344, 0x0000003F469C4345,
)
LG2 = Interp(LG2_SEGMENTS, Field(0, 38), Field(38, 15, 0, 23823), Field(53, 11, 0, 372), -1)
LG2_SCALE = 38

# 1/sqrt(m) and sqrt(m) for m in [1, 4) (24-bit offset: exponent parity, 23-bit mantissa; 128 segments),
# R in units 2^-40, truncated. Two words per segment: C0 and C2 in the first, C1 in the second.
RSQRT_SEGMENTS = (
    0x5227FFFFFBFFE, 0x4E87E05EBBFFC, 0x4B27C17643FFF, 0x47E7A33F93FFF,
    0x44E785B427FFE, 0x420768CDBBFFF, 0x3F474C866BFFF, 0x3CA730D89BFFF,
    0x3A2715BEF3FFF, 0x37C6FB344FFFE, 0x35A6E133D7FFC, 0x3366C7B903FFF,
    0x3166AEBF4FFFF, 0x2F6696429FFFE, 0x2D867E3ED3FFE, 0x2BA666B027FF8,
    0x2A064F92DFFFF, 0x286638E393FFE, 0x26C6229EC7FFE, 0x25460CC15BFFC,
    0x23C5F7482FFFE, 0x2265E2304C000, 0x2125CD76DBFFF, 0x1FE5B9192BFFC,
    0x1EA5A5149BFFF, 0x1D659166B3FFE, 0x1C457E0CF3FFE, 0x1B256B0517FFC,
    0x1A05584CDFFFF, 0x192545E227FFC, 0x182533C2D7FF8, 0x174521ED07FFF,
    0x1645105EBFFFC, 0x1564FF1623FFE, 0x14A4EE115FFFE, 0x13C4DD4ED7FFF,
    0x12E4CCCCD3FFE, 0x1224BC89B7FF8, 0x1164AC83FFFFF, 0x10C49CBA1BFFE,
    0x10048D2AB7FFC, 0x0F647DD44FFFF, 0x0EC46EB5A4000, 0x0E245FCD5BFFF,
    0x0D84511A33FFF, 0x0D04429AEFFFF, 0x0C64344E6FFFC, 0x0BC4263377FFF,
    0x0B441848FFFFC, 0x0AC40A8DE3FFF, 0x0A43FD0124000, 0x09E3EFA1BFFF8,
    0x0963E26EBBFFE, 0x08E3D5671BFFF, 0x0883C889FBFFF, 0x0823BBD66FFF8,
    0x07A3AF4BA7FFF, 0x0723A2E8C3FFF, 0x06C396ACEFFFC, 0x06638A975BFFF,
    0x06037EA747FFC, 0x05C372DBE7FFF, 0x056367349FFFC, 0x05035BB09BFFC,
    0x3683504F2C000, 0x340339F18FFFC, 0x318324169FFFF, 0x2F430EB95BFFC,
    0x2D42F9D52FFFE, 0x2B22E565B7FFF, 0x2942D166CBFFE, 0x2762BDD458000,
    0x25A2AAAAAFFFE, 0x23E297E623FFE, 0x224285835BFFE, 0x20C2737EFBFFF,
    0x1F6261D5FBFFF, 0x1DE250854FFFF, 0x1CA23F8A23FF8, 0x1B622EE1DBFFF,
    0x1A221E89B3FFF, 0x19020E7F4BFFF, 0x17E1FEC047FF0, 0x16C1EF4A4BFFC,
    0x15C1E01B2BFFF, 0x14C1D130E3FFF, 0x13E1C28963FFF, 0x12E1B422C3FFF,
    0x1201A5FB23FFC, 0x11419810BFFFF, 0x10818A61EBFFC, 0x0FA17CED07FFF,
    0x0F016FB063FFF, 0x0E2162AA9FFFE, 0x0D8155DA23FFF, 0x0CC1493DA3FFF,
    0x0C413CD3A3FFC, 0x0BA1309AF7FFF, 0x0B01249253FFC, 0x0A6118B86FFFE,
    0x09E10D0C2FFFE, 0x0941018C6BFFE, 0x08C0F6380FFFF, 0x0840EB0E0FFFF,
    0x07C0E00D57FFE, 0x0740D534FBFFF, 0x06E0CA83FBFFC, 0x0660BFF97BFFC,
    0x0600B5947FFFF, 0x05A0AB543FFFF, 0x0520A137E3FFF, 0x04E0973E83FE0,
    0x04808D6773FFF, 0x042083B1EBFF8, 0x03A07A1D2FFFC, 0x036070A87BFFF,
    0x032067531FFFF, 0x02C05E1C83FFC, 0x02805503DFFFE, 0x02204C08B7FFF,
    0x01E0432A53FFF, 0x01A03A6827FFE, 0x014031C1A4000, 0x0100293627FFE,
    0x00C020C52FFFF, 0x0080186E2BFFF, 0x00401030A3FFF, 0x0000080C23FFE,
)
RSQRT_SLOPES = (
    0, 1507, 2956, 4352, 5696, 6992, 8242, 9448,
    10612, 11737, 12823, 13874, 14890, 15873, 16825, 17747,
    18640, 19505, 20345, 21159, 21949, 22716, 23460, 24183,
    24886, 25569, 26233, 26879, 27508, 28119, 28715, 29294,
    29859, 30409, 30945, 31468, 31978, 32475, 32960, 33433,
    33895, 34346, 34786, 35216, 35636, 36046, 36447, 36840,
    37223, 37598, 37965, 38323, 38674, 39018, 39354, 39683,
    40006, 40322, 40631, 40934, 41231, 41522, 41807, 42087,
    19194, 20259, 21284, 22271, 23221, 24138, 25021, 25874,
    26697, 27493, 28261, 29004, 29722, 30418, 31091, 31742,
    32374, 32986, 33579, 34155, 34714, 35256, 35782, 36294,
    36791, 37274, 37743, 38200, 38644, 39077, 39498, 39908,
    40307, 40696, 41075, 41445, 41805, 42157, 42500, 42834,
    43161, 43480, 43791, 44095, 44392, 44682, 44966, 45243,
    45514, 45779, 46039, 46292, 46540, 46783, 47021, 47254,
    47482, 47705, 47924, 48138, 48348, 48554, 48756, 48953,
)
SQRT_SEGMENTS = (
    0x2880000007FFF, 0x27001FE047FFC, 0x25803F81FFFFE, 0x24405EE698000,
    0x22E07E0F6FFFE, 0x21C09CFDD7FFC, 0x20A0BBB30FFFE, 0x1F80DA3057FFE,
    0x1E40F876D8000, 0x1D611687AFFFF, 0x1C413463FFFFF, 0x1B21520CD8000,
    0x1A216F833FFFC, 0x19618CC827FFE, 0x1841A9DC97FFF, 0x1781C6C170000,
    0x16A1E3779FFFF, 0x15E2000007FFC, 0x15221C5B77FFE, 0x1442388AC7FFC,
    0x1362548EBFFFE, 0x12C2706828000, 0x11E28C17BFFFF, 0x1122A79E3FFFE,
    0x10A2C2FC5FFFE, 0x0FE2DE32CFFFE, 0x0F42F94237FE0, 0x0EA3142B37FFE,
    0x0E032EEE7FFFC, 0x0D83498C9FFFE, 0x0CE3640637FFE, 0x0C437E5BDFFFE,
    0x0BE3988E17FFE, 0x0B43B29D87FFF, 0x0AC3CC8A9FFFE, 0x0A63E655F7FFF,
    0x09E4000007FFF, 0x0924198957FFE, 0x08C432F257FF8, 0x08644C3B87FFE,
    0x07C4656567FFE, 0x07847E705FFFE, 0x0704975CDFFFF, 0x06C4B02B57FFF,
    0x0624C8DC38000, 0x05E4E16FDFFFE, 0x0584F9E6BFFFE, 0x050512413FFFF,
    0x04E52A7FB0000, 0x046542A27FFFF, 0x04055AAA07FFC, 0x03A572969FFFE,
    0x03258A68B0000, 0x0325A22078000, 0x0285B9BE67FFC, 0x0245D142BFFFF,
    0x0225E8ADD8000, 0x0186000007FFE, 0x0186173997FFC, 0x01062E5AD7FFF,
    0x00C645640FFFE, 0x00A65C5587FFE, 0x0046732F97FFF, 0x000689F277FFF,
    0x4286A09E70000, 0x4066CDB2C7FFE, 0x3EC6FA6EA7FFE, 0x3CC726D41FFFE,
    0x3B2752E517FFE, 0x39677EA367FFE, 0x3787AA10D7FFC, 0x35E7D52F27FFE,
    0x3428000007FFE, 0x32C82A8507FFC, 0x316854BFB7FFE, 0x30287EB19FFFE,
    0x2E88A85C2FFFC, 0x2D48D1C0C7FF0, 0x2BA8FAE0C7FFE, 0x2AC923BD87FFC,
    0x29494C5847FF0, 0x286974B237FFE, 0x27499CCC9FFF8, 0x25C9C4A89FFF8,
    0x24C9EC4757FFE, 0x240A13A9D0000, 0x22AA3AD137FFE, 0x21EA61BE78000,
    0x20AA88729FFFE, 0x202AAEEE9FFFE, 0x1F2AD5336FFFE, 0x1E6AFB41F7FFE,
    0x1D6B211B1FFFE, 0x1C4B46BFC7FFC, 0x1B6B6C30BFFFE, 0x1B2B916EDFFFE,
    0x1A2BB67AEFFFE, 0x192BDB55BFFFE, 0x18AC000007FFE, 0x17CC247A8FFFE,
    0x178C48C607FFC, 0x16CC6CE327FFE, 0x15CC90D2A7FFE, 0x156CB4951FFFE,
    0x14CCD82B47FFE, 0x13ECFB95C7FFC, 0x134D1ED527FF0, 0x128D41EA17FFE,
    0x122D64D528000, 0x11AD8796EFFFC, 0x10EDAA2FF7FFE, 0x10CDCCA0D7FF8,
    0x0FEDEEEA17FFE, 0x0F8E110C3FFFC, 0x0F2E3307CFFFE, 0x0E6E54DD58000,
    0x0E0E768D3FFFE, 0x0DEE981817FFE, 0x0D2EB97E4FFFE, 0x0C8EDAC05FFFC,
    0x0C8EFBDEB7FFE, 0x0BAF1CD9D7FFE, 0x0B6F3DB21FFFE, 0x0AEF5E6807FFE,
    0x0A8F7EFBF7FFC, 0x0A4F9F6E4FFFE, 0x09EFBFBF87FFE, 0x09AFDFEFF7FFC,
)
SQRT_SLOPES = (
    19012, 18506, 18011, 17528, 17055, 16593, 16141, 15698,
    15264, 14840, 14424, 14016, 13616, 13225, 12840, 12464,
    12094, 11731, 11375, 11025, 10681, 10344, 10012, 9686,
    9366, 9051, 8741, 8437, 8137, 7843, 7553, 7267,
    6987, 6710, 6438, 6170, 5906, 5645, 5389, 5137,
    4887, 4642, 4400, 4162, 3926, 3695, 3466, 3240,
    3018, 2798, 2581, 2367, 2155, 1948, 1741, 1538,
    1338, 1139, 944, 750, 559, 371, 184, 0,
    46157, 45441, 44743, 44059, 43391, 42737, 42097, 41471,
    40857, 40257, 39669, 39093, 38527, 37973, 37429, 36897,
    36373, 35861, 35357, 34861, 34375, 33899, 33429, 32969,
    32515, 32071, 31633, 31203, 30779, 30361, 29951, 29549,
    29151, 28759, 28375, 27995, 27623, 27255, 26891, 26535,
    26183, 25835, 25493, 25155, 24823, 24495, 24171, 23853,
    23537, 23227, 22921, 22617, 22319, 22025, 21733, 21445,
    21163, 20881, 20605, 20331, 20061, 19795, 19531, 19271,
)
RSQRT = Interp(RSQRT_SEGMENTS, Field(0, 39, 0, 1 << 39), Field(0, 16, 0, -65531, 1), Field(39, 12, 0, 388), 1,
               RSQRT_SLOPES)
SQRT = Interp(SQRT_SEGMENTS, Field(0, 40, 0, 1 << 40), Field(0, 16, 0, 46523, 1), Field(40, 11, 0, 364), -1,
              SQRT_SLOPES)
ROOT_SCALE = 40

# 1/m for m in [1, 2): 128 segments of 2^16 (xl left-aligned for the squarer), units 2^-40, truncated
RCP_SEGMENTS = (
    0x6E68000000FCE, 0x6B67E03F88FCE, 0x6887C0FC18FCE, 0x65E7A232D4FD0,
    0x632783E0F8FD0, 0x60876603E0FCE, 0x5E274898E0FCC, 0x5BA72B9D68FCE,
    0x59670F0F10FCE, 0x5726F2EB78FCE, 0x54E6D73044FCE, 0x52A6BBDB2CFCE,
    0x5086A0EA14FCE, 0x4E86865AD0FCE, 0x4C866C2B4CFCE, 0x4AA6525988FCE,
    0x48A638E394FCE, 0x46C61FC788FC8, 0x4506070388FCE, 0x4365EE95C8FCC,
    0x41C5D67C8CFCE, 0x4005BEB624FCE, 0x3EA5A740DCFCE, 0x3D05901B28FCE,
    0x3B65794364FCE, 0x3A0562B818FC8, 0x38854C77B8FCC, 0x37453680D8FC8,
    0x35E520D218FCC, 0x34650B6A04FCC, 0x3344F64754FCE, 0x31E4E168ACFCE,
    0x30A4CCCCD4FCE, 0x2F84B87284FCE, 0x2E64A45880FCE, 0x2D04907DACFCC,
    0x2C047CE0CCFD0, 0x2B046980D0FCE, 0x29E4565C90FCE, 0x28E4437304FCE,
    0x27E430C314FD0, 0x26E41E4BC4FCE, 0x25E40C0C14FD0, 0x2503FA0308FCC,
    0x2403E82FA8FCC, 0x2343D6910CFC8, 0x2223C52648FCE, 0x2163B3EE78FCE,
    0x2083A2E8C4FCE, 0x1FA3921444FCE, 0x1EE3817030FCE, 0x1E2370FBC0FD0,
    0x1D8360B614FCC, 0x1C83509E70FCC, 0x1BE340B410FCE, 0x1B4330F638FCC,
    0x1A63216434FCE, 0x19E311FD48FCE, 0x192302C0B8FCC, 0x1882F3ADE0FCE,
    0x17C2E4C41CFCE, 0x1742D602C0FCC, 0x1682C76924FCE, 0x15E2B8F6A4FCC,
    0x1582AAAAB0FCE, 0x14E29C84B0FCE, 0x14228E8400FCE, 0x13A280A810FCE,
    0x132272F05CFCE, 0x12A2655C48FCE, 0x120257EB58FCC, 0x11A24A9CFCFCE,
    0x11023D70ACFCE, 0x10A23065ECFCC, 0x1002237C38FCC, 0x0FC216B318FC0,
    0x0F220A0A14FCE, 0x0EC1FD80A8FCC, 0x0E21F11668FCE, 0x0DC1E4CAD8FCC,
    0x0D61D89D90FCE, 0x0CE1CC8E20FCE, 0x0CA1C09C14FCE, 0x0C01B4C704FCE,
    0x0BA1A90E84FCE, 0x0B819D7234FCE, 0x0B0191F1ACFCC, 0x0A81868C88FCC,
    0x0A417B4268FCC, 0x09C17012ECFCC, 0x096164FDACFCE, 0x09415A0260FC8,
    0x08A14F209CFCE, 0x0861445810FCE, 0x084139A864FCC, 0x07E12F1140FCC,
    0x0761249250FCE, 0x07011A2B44FD0, 0x06C10FDBCCFCC, 0x068105A38CFCE,
    0x0640FB8248FCE, 0x0600F177A4FD0, 0x05A0E7835CFCE, 0x0560DDA528FCE,
    0x0520D3DCB8FD0, 0x04E0CA29C4FCC, 0x0480C08C10FCE, 0x0460B7034CFCE,
    0x03E0AD8F38FCE, 0x03C0A42F90FC8, 0x03A09AE410FCE, 0x032091AC7CFCE,
    0x0300888890FCE, 0x02E07F7810FCE, 0x0280767ABCFCC, 0x02606D9060FCE,
    0x022064B8B0FCE, 0x01E05BF37CFD0, 0x01A0534090FD0, 0x01A04A9FA0FD0,
    0x014042108CFCC, 0x0100399310FD0, 0x00E03126F4FCE, 0x00A028CC04FCE,
    0x0060208210FCE, 0x00401848E4FCE, 0x0020102044FCE, 0x000008080CFCE,
)
RCP_SLOPES = (
    0, 2024, 4002, 5934, 7824, 9670, 11474, 13240,
    14966, 16654, 18306, 19924, 21506, 23054, 24570, 26054,
    27508, 28932, 30326, 31692, 33030, 34342, 35626, 36886,
    38122, 39332, 40520, 41684, 42826, 43948, 45046, 46126,
    47184, 48222, 49242, 50244, 51226, 52190, 53138, 54068,
    54982, 55880, 56762, 57628, 58480, 59316, 60140, 60948,
    61742, 62524, 63292, 64046, 64788, 65520, 66238, 66944,
    67640, 68322, 68996, 69658, 70310, 70950, 71582, 72204,
    72814, 73416, 74010, 74594, 75168, 75734, 76292, 76840,
    77382, 77914, 78440, 78956, 79466, 79968, 80464, 80952,
    81432, 81906, 82372, 82834, 83288, 83734, 84176, 84612,
    85040, 85464, 85882, 86292, 86700, 87100, 87494, 87884,
    88270, 88650, 89024, 89394, 89758, 90118, 90474, 90824,
    91170, 91512, 91850, 92182, 92512, 92836, 93156, 93474,
    93786, 94094, 94400, 94700, 94998, 95292, 95582, 95868,
    96152, 96432, 96708, 96982, 97252, 97518, 97782, 98042,
)
RCP = Interp(RCP_SEGMENTS, Field(0, 40, 0, 1 << 39), Field(0, 17, 0, -131068, 1), Field(40, 11, 0, 260), 1,
             RCP_SLOPES, 16)

def truncated_square_terms() -> list[tuple[int, int, int]]:
    """(bit j, 2^(2j), mask) per bit of xl that contributes to tsq(xl) >> 19: tsq = sum over set bits j of
    2^(2j) [when 2j >= 19] + 2^(j+1) * (xl & mask_j), mask_j the lower bits i with i + j + 1 >= 19."""
    terms = []
    for j in range(XL_BITS):
        lo = max(SQ_DROP - 1 - j, 0)
        mask = ((1 << j) - 1) & ~((1 << lo) - 1)
        square = 1 << (2 * j) if 2 * j >= SQ_DROP else 0
        if square or mask:
            terms.append((j, square, mask))
    return terms


def turn_index(bits: np.ndarray) -> np.ndarray:
    """k = floor(frac(RZ(|x| * f32(1/2pi))) * 2^25) from the f32 bits of x (int64 arithmetic)."""
    a = bits.astype(np.int64) & 0x7FFFFFFF
    e = a >> 23
    mant = np.where(e != 0, (a & 0x7FFFFF) | 0x800000, 0)
    p = mant * ((TURN & 0x7FFFFF) | 0x800000)  # < 2^48
    drop = np.where(p >= 1 << 47, 24, 23)  # the product rounded toward zero to 24 bits
    pw = (p >> drop) << drop
    sh = e - 151  # t * 2^25 = pw * 2^(e - 151)
    left = np.where(sh >= 0, pw << np.clip(sh, 0, 40), 0)
    right = np.where(sh < 0, pw >> np.clip(-sh, 0, 63), 0)
    k = np.where(sh >= 0, np.where(sh >= 40, 0, left), right)
    return np.where(e == 0, 0, k) & ((1 << 25) - 1)


def interpolate(spec: Interp, r: np.ndarray) -> np.ndarray:
    """R = C0 + C1*xl + sign*C2*(tsq(xl) >> 19) for offsets r (int64; segment r >> 17)."""
    seg = r >> spec.xl_bits
    ws = (np.array(spec.words, dtype=np.uint64)[seg], np.array(spec.words2 or (0,), dtype=np.uint64)[
        np.minimum(seg, len(spec.words2) - 1) if spec.words2 else 0])
    xl = r & ((1 << spec.xl_bits) - 1)
    xs = xl << (XL_BITS - spec.xl_bits)
    tsq = np.zeros_like(xl)
    for j, square, mask in truncated_square_terms():
        tsq += np.where((xs >> j) & 1, square + ((xs & mask) << (j + 1)), 0)

    def field(f: Field) -> np.ndarray:
        raw = ((ws[f.word] >> np.uint64(f.pos)) & np.uint64((1 << f.bits) - 1)).astype(np.int64)
        return (raw << f.shift) + f.bias

    return field(spec.c0) + field(spec.c1) * xl + spec.c2_sign * field(spec.c2) * (tsq >> SQ_DROP)


def quadrant_value(k: np.ndarray) -> np.ndarray:
    """The f32 bits of sin at turn fraction k (int64 array of 25-bit values)."""
    q = k >> 23
    r = k & 0x7FFFFF
    r = np.where(q & 1, r ^ 0x7FFFFF, r)
    big = interpolate(SIN, r)  # >= 0, <= 2^37
    # truncate to 24 significant bits, then scale by 2^-37 (exact: every nonzero R is >= 2^14)
    f = _int_to_f32_rz(big)
    bits = np.where(big == 0, 0, f - (SCALE_EXP << 23))
    return (bits | np.where(q >= 2, 0x80000000, 0)).astype(np.int64)


def _int_to_f32_rz(v: np.ndarray) -> np.ndarray:
    """f32 bits of the non-negative int64 v rounded toward zero (v < 2^62)."""
    v = v.astype(np.int64)
    nb = np.zeros_like(v)
    t = v.copy()
    for s in (32, 16, 8, 4, 2, 1):
        hi = (t >> s) != 0
        nb = np.where(hi, nb + s, nb)
        t = np.where(hi, t >> s, t)
    # nb = floor(log2 v) for v > 0
    mant = np.where(nb > 23, v >> np.clip(nb - 23, 0, 63), v << np.clip(23 - nb, 0, 63))
    return ((nb + 127) << 23) | (mant & 0x7FFFFF)


def sincos_bits(fn: str, x_bits: np.ndarray) -> np.ndarray:
    """sin.approx.f32 / cos.approx.f32 of f32 bit patterns, as the H100 returns them (u32 bits)."""
    x_bits = np.asarray(x_bits, dtype=np.uint32)
    k = turn_index(x_bits)
    if fn == "cos":
        k = (k + (1 << 23)) & ((1 << 25) - 1)
    r = quadrant_value(k)
    if fn == "sin":
        r = r ^ (x_bits.astype(np.int64) & 0x80000000)
    special = (x_bits & 0x7F800000) == 0x7F800000  # inf or NaN
    return np.where(special, 0x7FFFFFFF, r).astype(np.uint32)


def _mufu_ex2(x: np.ndarray) -> np.ndarray:
    """MUFU.EX2 of f32 values x (float32 array) -> u32 bits; results below 2^-126 flush to +0."""
    bits = x.view(np.uint32).astype(np.int64)
    a = bits & 0x7FFFFFFF
    e = a >> 23
    mant = (a & 0x7FFFFF) | 0x800000
    big_arg = e >= 127 + 8  # |x| >= 256: overflow or underflow whatever the fraction
    fixed = np.where(e >= 127, mant << np.clip(e - 127, 0, 7), mant >> np.clip(127 - e, 0, 63))
    fixed = np.where(e == 0, 0, fixed)  # subnormal arguments: 2^0
    ipart, frac = fixed >> 23, fixed & 0x7FFFFF
    neg = (bits >> 31) != 0
    # a negative argument takes the one's complement of its fixed-point magnitude (2^-i exactly when
    # the fraction is 0)
    expo = np.where(neg, np.where(frac == 0, -ipart, -ipart - 1), ipart)
    frac = np.where(neg & (frac != 0), frac ^ 0x7FFFFF, frac)
    mbits = (interpolate(EX2, frac) >> (EX2_SCALE - 23)) & 0x7FFFFF
    r = ((expo + 127) << 23) | mbits
    r = np.where(expo > 127, 0x7F800000, np.where(expo < -126, 0, r))
    r = np.where(big_arg, np.where(neg, 0, 0x7F800000), r)
    r = np.where(np.isnan(x), 0x7FFFFFFF, r)
    return r.astype(np.uint32)


def ex2_bits(x_bits: np.ndarray) -> np.ndarray:
    """ex2.approx.f32 of f32 bit patterns as the H100 returns them: ptxas halves an argument below -126,
    runs MUFU.EX2 and squares the result (so subnormal results appear), else MUFU.EX2 alone."""
    x = np.asarray(x_bits, dtype=np.uint32).view(np.float32)
    low = x < np.float32(-126)
    with np.errstate(all="ignore"):
        arg = np.where(low, x * np.float32(0.5), x).astype(np.float32)
        r = _mufu_ex2(arg).view(np.float32)
        sq = (r * r).astype(np.float32)
    return np.where(low, sq.view(np.uint32), r.view(np.uint32)).astype(np.uint32)


def _mufu_lg2(b: np.ndarray) -> np.ndarray:
    """MUFU.LG2 of positive normal f32 bits b (int64) -> u32 bits (x = 1 gives +0)."""
    e = ((b >> 23) & 0xFF) - 127
    # exponent + log2(1 + f) in units 2^-38, kept to 2^-36; a negative sum's magnitude is its one's
    # complement; the magnitude truncated to f32
    rq = ((e << LG2_SCALE) + interpolate(LG2, b & 0x7FFFFF)) >> 2
    mag = np.where(rq < 0, ~rq, rq)
    fb = np.where(mag == 0, 0, _int_to_f32_rz(mag) - ((LG2_SCALE - 2) << 23))
    out = fb | np.where(rq < 0, 0x80000000, 0)
    return np.where(b == 0x3F800000, 0, out)


def lg2_bits(x_bits: np.ndarray) -> np.ndarray:
    """lg2.approx.f32 of f32 bit patterns as the H100 returns them: ptxas scales a subnormal (or zero)
    argument by 2^24 and subtracts 24 from MUFU.LG2's result; negative or NaN arguments give the
    canonical NaN, +-0 gives -inf, +inf gives +inf."""
    u = np.asarray(x_bits, dtype=np.uint32)
    b = u.astype(np.int64)
    a = b & 0x7FFFFFFF
    sub = a < 0x00800000
    with np.errstate(all="ignore"):
        scaled = (u.view(np.float32) * np.float32(2.0 ** 24)).astype(np.float32).view(np.uint32).astype(np.int64)
    arg = np.where(sub, scaled, b) & 0x7FFFFFFF
    r = _mufu_lg2(np.where(arg == 0, 0x3F800000, arg)).astype(np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        r = np.where(sub, (r + np.float32(-24.0)).astype(np.float32), r).view(np.uint32).astype(np.int64)
    r = np.where(a == 0, 0xFF800000, r)
    r = np.where(a == 0x7F800000, 0x7F800000, r)
    r = np.where(((b >> 31) != 0) & (a != 0), 0x7FFFFFFF, r)  # negative (incl. -inf)
    r = np.where(a > 0x7F800000, 0x7FFFFFFF, r)
    return r.astype(np.uint32)


def _mufu_root(spec: Interp, b: np.ndarray) -> np.ndarray:
    """MUFU.RSQ / MUFU.SQRT of positive normal f32 bits b (int64) -> u32 bits."""
    e = ((b >> 23) & 0xFF) - 127
    odd = e & 1
    r = (odd << 23) | (b & 0x7FFFFF)
    m = _int_to_f32_rz(interpolate(spec, r)) - (ROOT_SCALE << 23)  # the value for m in [1, 4)
    m = np.where(r == 0, 0x3F800000, m)  # a power of 4: exact
    half = (e - odd) // 2
    return (m + np.where(spec is RSQRT, -half, half) * (1 << 23)).astype(np.int64)


def root_bits(fn: str, x_bits: np.ndarray) -> np.ndarray:
    """rsqrt.approx.f32 / sqrt.approx.f32 of f32 bit patterns as the H100 returns them: ptxas scales a
    subnormal (or zero) argument by 2^24 and the result by 2^12 (rsqrt) / 2^-12 (sqrt); a negative
    argument (not -0) or NaN gives the canonical NaN; rsqrt(+-0) = +-inf, rsqrt(inf) = +0, sqrt(+-0) = +-0,
    sqrt(inf) = inf."""
    spec = RSQRT if fn == "rsqrt" else SQRT
    u = np.asarray(x_bits, dtype=np.uint32)
    b = u.astype(np.int64)
    a = b & 0x7FFFFFFF
    sub = a < 0x00800000
    with np.errstate(all="ignore"):
        scaled = (u.view(np.float32) * np.float32(2.0 ** 24)).astype(np.float32).view(np.uint32).astype(np.int64)
    arg = np.where(sub, scaled, b) & 0x7FFFFFFF
    r = _mufu_root(spec, np.where(arg == 0, 0x3F800000, arg)).astype(np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        back = np.float32(2.0 ** 12 if fn == "rsqrt" else 2.0 ** -12)
        r = np.where(sub, (r * back).astype(np.float32), r).view(np.uint32).astype(np.int64)
    sign = b & 0x80000000
    zero_res, inf_res = (0x7F800000, 0) if fn == "rsqrt" else (0, 0x7F800000)
    r = np.where(a == 0, sign | zero_res, r)
    r = np.where(a == 0x7F800000, inf_res, r)
    r = np.where((sign != 0) & (a != 0), 0x7FFFFFFF, r)
    r = np.where(a > 0x7F800000, 0x7FFFFFFF, r)
    return r.astype(np.uint32)


def _mufu_rcp(b: np.ndarray) -> np.ndarray:
    """MUFU.RCP of normal f32 bits b (int64, any sign) -> u32 bits."""
    e = ((b >> 23) & 0xFF) - 127
    r = b & 0x7FFFFF
    m = _int_to_f32_rz(interpolate(RCP, r)) - (ROOT_SCALE << 23)  # 1/m in (0.5, 1]
    m = np.where(r == 0, 0x3F800000, m)
    return ((m - e * (1 << 23)) | (b & 0x80000000)).astype(np.int64)


def rcp_bits(x_bits: np.ndarray) -> np.ndarray:
    """rcp.approx.f32 of f32 bit patterns as the H100 returns them: ptxas multiplies the argument by
    s = 2^24 (|x| < 2^-126) or 1/4 (|x| > 2^126), takes MUFU.RCP and multiplies by s again (rounded to
    nearest: subnormal results for huge arguments); 1/+-0 = +-inf, 1/+-inf = +-0, NaN: canonical."""
    u = np.asarray(x_bits, dtype=np.uint32)
    b = u.astype(np.int64)
    a = b & 0x7FFFFFFF
    x = u.view(np.float32)
    s = np.where(a < 0x00800000, np.float32(2.0 ** 24), np.where(a > 0x7E800000, np.float32(0.25), np.float32(1)))
    with np.errstate(all="ignore"):
        y = (x * s).astype(np.float32).view(np.uint32).astype(np.int64)
        ya = y & 0x7FFFFFFF
        m = _mufu_rcp(np.where((ya == 0) | (ya >= 0x7F800000), 0x3F800000, y))
        m = np.where(ya == 0, 0x7F800000 | (y & 0x80000000), m)
        m = np.where(ya == 0x7F800000, y & 0x80000000, m)
        r = (m.astype(np.uint32).view(np.float32) * s).astype(np.float32).view(np.uint32).astype(np.int64)
    return np.where(a > 0x7F800000, 0x7FFFFFFF, r).astype(np.uint32)
