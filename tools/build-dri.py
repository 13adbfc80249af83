#!/usr/bin/env python3
# Writes Sources/Nutrition/Resources/dri.tsv: the National Academies' Dietary Reference Intakes.
"""The DRI resource ofj sets personal targets from (see Sources/Nutrition/Resources/PROVENANCE.md).

This file is the transcription, one line per nutrient across the 22 life-stage groups
(the order of GROUPS), read down each column of the NASEM summary tables:
  "*" after a number marks an Adequate Intake (AI), a bare number a Recommended Dietary
  Allowance (RDA); "-" means the table gives none (ND, "not determinable", for a UL).
Values are in the unit the summary table prints (`src_unit`) and converted once to ofj's
canonical unit. Tests/NutritionTests/DRITableTests.swift checks every cell of the output against
a second transcription laid out like the printed tables (one row per life-stage group), so a
typo in either shows up as a mismatch.

Usage: python3 tools/build-dri.py [--check]   (--check: exit 1 if the committed file differs)
Python 3 standard library only; the output has no timestamps (two runs give the same bytes).
"""
import os
import sys

GROUPS = [
    "infant_0_6mo", "infant_7_12mo", "child_1_3", "child_4_8",
    "male_9_13", "male_14_18", "male_19_30", "male_31_50", "male_51_70", "male_71_plus",
    "female_9_13", "female_14_18", "female_19_30", "female_31_50", "female_51_70", "female_71_plus",
    "pregnancy_14_18", "pregnancy_19_30", "pregnancy_31_50",
    "lactation_14_18", "lactation_19_30", "lactation_31_50",
]

T_VIT = "DRI summary tables, Vitamins RDA/AI, NASEM"
T_VIT_UL = "DRI summary tables, Vitamins UL, NASEM"
T_EL = "DRI summary tables, Elements RDA/AI, NASEM"
T_EL_UL = "DRI summary tables, Elements UL, NASEM"
T_MAC = "DRI summary tables, Total Water and Macronutrients RDA/AI, NASEM"
T_NAK = "DRI summary tables, Elements RDA/AI and CDRR, NASEM"

R_MAC = "Energy, Carbohydrate, Fiber, Fat, Fatty Acids, Cholesterol, Protein, and Amino Acids (2002/2005)"
R_B = "Thiamin, Riboflavin, Niacin, Vitamin B6, Folate, Vitamin B12, Pantothenic Acid, Biotin, and Choline (1998)"
R_CE = "Vitamin C, Vitamin E, Selenium, and Carotenoids (2000)"
R_AK = "Vitamin A, Vitamin K, Arsenic, Boron, Chromium, Copper, Iodine, Iron, Manganese, Molybdenum, Nickel, Silicon, Vanadium, and Zinc (2001)"
R_CAD = "Calcium and Vitamin D (2011)"
R_PMG = "Calcium, Phosphorus, Magnesium, Vitamin D, and Fluoride (1997)"
R_NAK = "Sodium and Potassium (2019)"
R_CL = "Water, Potassium, Sodium, Chloride, and Sulfate (2005)"

# nutrient id, ofj unit, summary-table unit, factor to ofj unit, intake table, intake report, intake
# values (22), limit kind, limit table, limit report, limit values (22), caveat
N = []


def nut(id, unit, src_unit, factor, table, report, intake, limit_kind="", limit_table="", limit_report="", limit="", caveat=""):
    N.append(dict(id=id, unit=unit, src_unit=src_unit, factor=factor, table=table, report=report, intake=intake.split(),
                  limit_kind=limit_kind, limit_table=limit_table, limit_report=limit_report,
                  limit=limit.split() if limit else ["-"] * 22, caveat=caveat))


# Groups:   0-6mo 7-12mo 1-3 4-8 | M 9-13 14-18 19-30 31-50 51-70 >70 | F 9-13 14-18 19-30 31-50 51-70 >70 | P <=18 19-30 31-50 | L <=18 19-30 31-50
nut("energy_kcal", "kcal", "kcal/d", 1, T_MAC, R_MAC, "- - - -  - - - - - -  - - - - - -  - - -  - - -",
    caveat="no RDA or AI: energy needs are the person's own (Estimated Energy Requirement); ofj computes it from the profile")
nut("protein_g", "g", "g/d", 1, T_MAC, R_MAC,
    "9.1* 11.0 13 19  34 52 56 56 56 56  34 46 46 46 46 46  71 71 71  71 71 71",
    caveat="RDA in g/d for the reference body weight; per kg: 1.52 (AI, 0-6 mo), 1.2, 1.05, 0.95 (4-13 y), 0.85 (14-18 y), 0.80 (19+ y), 1.1 pregnancy, 1.3 lactation")
nut("carbohydrate_g", "g", "g/d", 1, T_MAC, R_MAC,
    "60* 95* 130 130  130 130 130 130 130 130  130 130 130 130 130 130  175 175 175  210 210 210",
    caveat="the RDA is the brain's glucose need, a floor rather than a diet; AMDR 45-65% of energy")
nut("fat_g", "g", "g/d", 1, T_MAC, R_MAC,
    "31* 30* - -  - - - - - -  - - - - - -  - - -  - - -",
    caveat="no RDA or AI after infancy; AMDR 20-35% of energy (ages 19+; 30-40% at 1-3 y, 25-35% at 4-18 y)")
nut("fiber_g", "g", "g/d", 1, T_MAC, R_MAC,
    "- - 19* 25*  31* 38* 38* 38* 30* 30*  26* 26* 25* 25* 21* 21*  28* 28* 28*  29* 29* 29*",
    caveat="total fiber; AI from 14 g per 1,000 kcal")
nut("added_sugars_g", "g", "g/d", 1, T_MAC, R_MAC, "- - - -  - - - - - -  - - - - - -  - - -  - - -",
    caveat="no DRI and no UL; the report suggests added sugars stay under 25% of energy")
nut("saturated_fat_g", "g", "g/d", 1, T_MAC, R_MAC, "- - - -  - - - - - -  - - - - - -  - - -  - - -",
    caveat="no DRI: as low as possible while eating a nutritionally adequate diet")
nut("cholesterol_mg", "mg", "mg/d", 1, T_MAC, R_MAC, "- - - -  - - - - - -  - - - - - -  - - -  - - -",
    caveat="no DRI: as low as possible while eating a nutritionally adequate diet")

nut("vitamin_a_mcg", "mcg", "ug RAE/d", 1, T_VIT, R_AK,
    "400* 500* 300 400  600 900 900 900 900 900  600 700 700 700 700 700  750 770 770  1200 1300 1300",
    "UL", T_VIT_UL, R_AK,
    "600 600 600 900  1700 2800 3000 3000 3000 3000  1700 2800 3000 3000 3000 3000  2800 3000 3000  2800 3000 3000",
    caveat="as retinol activity equivalents (RAE); the UL is for preformed vitamin A (retinol) only")
nut("vitamin_c_mg", "mg", "mg/d", 1, T_VIT, R_CE,
    "40* 50* 15 25  45 75 90 90 90 90  45 65 75 75 75 75  80 85 85  115 120 120",
    "UL", T_VIT_UL, R_CE,
    "- - 400 650  1200 1800 2000 2000 2000 2000  1200 1800 2000 2000 2000 2000  1800 2000 2000  1800 2000 2000",
    caveat="smokers need 35 mg/d more")
nut("vitamin_d_mcg", "mcg", "ug/d", 1, T_VIT, R_CAD,
    "10* 10* 15 15  15 15 15 15 15 20  15 15 15 15 15 20  15 15 15  15 15 15",
    "UL", T_VIT_UL, R_CAD,
    "25 38 63 75  100 100 100 100 100 100  100 100 100 100 100 100  100 100 100  100 100 100",
    caveat="as cholecalciferol (1 ug = 40 IU), assuming minimal sun")
nut("vitamin_e_mg", "mg", "mg/d", 1, T_VIT, R_CE,
    "4* 5* 6 7  11 15 15 15 15 15  11 15 15 15 15 15  15 15 15  19 19 19",
    "UL", T_VIT_UL, R_CE,
    "- - 200 300  600 800 1000 1000 1000 1000  600 800 1000 1000 1000 1000  800 1000 1000  800 1000 1000",
    caveat="as alpha-tocopherol (2R-stereoisomers); the UL applies to any form of supplemental alpha-tocopherol")
nut("vitamin_k_mcg", "mcg", "ug/d", 1, T_VIT, R_AK,
    "2.0* 2.5* 30* 55*  60* 75* 120* 120* 120* 120*  60* 75* 90* 90* 90* 90*  75* 90* 90*  75* 90* 90*")
nut("thiamin_mg", "mg", "mg/d", 1, T_VIT, R_B,
    "0.2* 0.3* 0.5 0.6  0.9 1.2 1.2 1.2 1.2 1.2  0.9 1.0 1.1 1.1 1.1 1.1  1.4 1.4 1.4  1.4 1.4 1.4")
nut("riboflavin_mg", "mg", "mg/d", 1, T_VIT, R_B,
    "0.3* 0.4* 0.5 0.6  0.9 1.3 1.3 1.3 1.3 1.3  0.9 1.0 1.1 1.1 1.1 1.1  1.4 1.4 1.4  1.6 1.6 1.6")
nut("niacin_mg", "mg", "mg NE/d", 1, T_VIT, R_B,
    "2* 4* 6 8  12 16 16 16 16 16  12 14 14 14 14 14  18 18 18  17 17 17",
    "UL", T_VIT_UL, R_B,
    "- - 10 15  20 30 35 35 35 35  20 30 35 35 35 35  30 35 35  30 35 35",
    caveat="as niacin equivalents (NE: 1 mg niacin = 60 mg tryptophan; 0-6 mo as preformed niacin); the UL applies to synthetic niacin from supplements, fortified foods or both")
nut("vitamin_b6_mg", "mg", "mg/d", 1, T_VIT, R_B,
    "0.1* 0.3* 0.5 0.6  1.0 1.3 1.3 1.3 1.7 1.7  1.0 1.2 1.3 1.3 1.5 1.5  1.9 1.9 1.9  2.0 2.0 2.0",
    "UL", T_VIT_UL, R_B,
    "- - 30 40  60 80 100 100 100 100  60 80 100 100 100 100  80 100 100  80 100 100")
nut("folate_mcg", "mcg", "ug DFE/d", 1, T_VIT, R_B,
    "65* 80* 150 200  300 400 400 400 400 400  300 400 400 400 400 400  600 600 600  500 500 500",
    "UL", T_VIT_UL, R_B,
    "- - 300 400  600 800 1000 1000 1000 1000  600 800 1000 1000 1000 1000  800 1000 1000  800 1000 1000",
    caveat="as dietary folate equivalents (DFE); the UL is for synthetic folic acid from supplements, fortified foods or both (ug folic acid, not DFE)")
nut("vitamin_b12_mcg", "mcg", "ug/d", 1, T_VIT, R_B,
    "0.4* 0.5* 0.9 1.2  1.8 2.4 2.4 2.4 2.4 2.4  1.8 2.4 2.4 2.4 2.4 2.4  2.6 2.6 2.6  2.8 2.8 2.8",
    caveat="over 50, meet the RDA mainly with fortified foods or a supplement")
nut("pantothenic_acid_mg", "mg", "mg/d", 1, T_VIT, R_B,
    "1.7* 1.8* 2* 3*  4* 5* 5* 5* 5* 5*  4* 5* 5* 5* 5* 5*  6* 6* 6*  7* 7* 7*")
nut("biotin_mcg", "mcg", "ug/d", 1, T_VIT, R_B,
    "5* 6* 8* 12*  20* 25* 30* 30* 30* 30*  20* 25* 30* 30* 30* 30*  30* 30* 30*  35* 35* 35*")
nut("choline_mg", "mg", "mg/d", 1, T_VIT, R_B,
    "125* 150* 200* 250*  375* 550* 550* 550* 550* 550*  375* 400* 425* 425* 425* 425*  450* 450* 450*  550* 550* 550*",
    "UL", T_VIT_UL, R_B,
    "- - 1000 1000  2000 3000 3500 3500 3500 3500  2000 3000 3500 3500 3500 3500  3000 3500 3500  3000 3500 3500",
    caveat="the UL table prints g/d (1.0 to 3.5 g); stored in mg")

nut("calcium_mg", "mg", "mg/d", 1, T_EL, R_CAD,
    "200* 260* 700 1000  1300 1300 1000 1000 1000 1200  1300 1300 1000 1000 1200 1200  1300 1000 1000  1300 1000 1000",
    "UL", T_EL_UL, R_CAD,
    "1000 1500 2500 2500  3000 3000 2500 2500 2000 2000  3000 3000 2500 2500 2000 2000  3000 2500 2500  3000 2500 2500")
nut("iron_mg", "mg", "mg/d", 1, T_EL, R_AK,
    "0.27* 11 7 10  8 11 8 8 8 8  8 15 18 18 8 8  27 27 27  10 9 9",
    "UL", T_EL_UL, R_AK,
    "40 40 40 40  40 45 45 45 45 45  40 45 45 45 45 45  45 45 45  45 45 45",
    caveat="vegetarians need 1.8 times the RDA")
nut("magnesium_mg", "mg", "mg/d", 1, T_EL, R_PMG,
    "30* 75* 80 130  240 410 400 420 420 420  240 360 310 320 320 320  400 350 360  360 310 320",
    "UL", T_EL_UL, R_PMG,
    "- - 65 110  350 350 350 350 350 350  350 350 350 350 350 350  350 350 350  350 350 350",
    caveat="the UL is for supplemental magnesium (pharmacological agents) only, not magnesium in food and water")
nut("phosphorus_mg", "mg", "mg/d", 1, T_EL, R_PMG,
    "100* 275* 460 500  1250 1250 700 700 700 700  1250 1250 700 700 700 700  1250 700 700  1250 700 700",
    "UL", T_EL_UL, R_PMG,
    "- - 3000 3000  4000 4000 4000 4000 4000 3000  4000 4000 4000 4000 4000 3000  3500 3500 3500  4000 4000 4000",
    caveat="the UL table prints g/d (3 to 4 g); stored in mg")
nut("potassium_mg", "mg", "mg/d", 1, T_NAK, R_NAK,
    "400* 860* 2000* 2300*  2500* 3000* 3400* 3400* 3400* 3400*  2300* 2300* 2600* 2600* 2600* 2600*  2600* 2900* 2900*  2500* 2800* 2800*",
    caveat="no UL and no CDRR (2019: the evidence was insufficient)")
nut("sodium_mg", "mg", "mg/d", 1, T_NAK, R_NAK,
    "110* 370* 800* 1000*  1200* 1500* 1500* 1500* 1500* 1500*  1200* 1500* 1500* 1500* 1500* 1500*  1500* 1500* 1500*  1500* 1500* 1500*",
    "CDRR", T_NAK, R_NAK,
    "- - 1200 1500  1800 2300 2300 2300 2300 2300  1800 2300 2300 2300 2300 2300  2300 2300 2300  2300 2300 2300",
    caveat="the limit is the Chronic Disease Risk Reduction intake (CDRR), not a UL: lowering intake above it lowers chronic-disease risk; the 2019 report set no sodium UL")
nut("zinc_mg", "mg", "mg/d", 1, T_EL, R_AK,
    "2* 3 3 5  8 11 11 11 11 11  8 9 8 8 8 8  12 11 11  13 12 12",
    "UL", T_EL_UL, R_AK,
    "4 5 7 12  23 34 40 40 40 40  23 34 40 40 40 40  34 40 40  34 40 40")
nut("copper_mg", "mg", "ug/d", 0.001, T_EL, R_AK,
    "200* 220* 340 440  700 890 900 900 900 900  700 890 900 900 900 900  1000 1000 1000  1300 1300 1300",
    "UL", T_EL_UL, R_AK,
    "- - 1000 3000  5000 8000 10000 10000 10000 10000  5000 8000 10000 10000 10000 10000  8000 10000 10000  8000 10000 10000",
    caveat="the tables print ug/d; stored in mg")
nut("manganese_mg", "mg", "mg/d", 1, T_EL, R_AK,
    "0.003* 0.6* 1.2* 1.5*  1.9* 2.2* 2.3* 2.3* 2.3* 2.3*  1.6* 1.6* 1.8* 1.8* 1.8* 1.8*  2.0* 2.0* 2.0*  2.6* 2.6* 2.6*",
    "UL", T_EL_UL, R_AK,
    "- - 2 3  6 9 11 11 11 11  6 9 11 11 11 11  9 11 11  9 11 11")
nut("selenium_mcg", "mcg", "ug/d", 1, T_EL, R_CE,
    "15* 20* 20 30  40 55 55 55 55 55  40 55 55 55 55 55  60 60 60  70 70 70",
    "UL", T_EL_UL, R_CE,
    "45 60 90 150  280 400 400 400 400 400  280 400 400 400 400 400  400 400 400  400 400 400")
nut("chromium_mcg", "mcg", "ug/d", 1, T_EL, R_AK,
    "0.2* 5.5* 11* 15*  25* 35* 35* 35* 30* 30*  21* 24* 25* 25* 20* 20*  29* 30* 30*  44* 45* 45*")
nut("molybdenum_mcg", "mcg", "ug/d", 1, T_EL, R_AK,
    "2* 3* 17 22  34 43 45 45 45 45  34 43 45 45 45 45  50 50 50  50 50 50",
    "UL", T_EL_UL, R_AK,
    "- - 300 600  1100 1700 2000 2000 2000 2000  1100 1700 2000 2000 2000 2000  1700 2000 2000  1700 2000 2000")
nut("iodine_mcg", "mcg", "ug/d", 1, T_EL, R_AK,
    "110* 130* 90 90  120 150 150 150 150 150  120 150 150 150 150 150  220 220 220  290 290 290",
    "UL", T_EL_UL, R_AK,
    "- - 200 300  600 900 1100 1100 1100 1100  600 900 1100 1100 1100 1100  900 1100 1100  900 1100 1100")
nut("chloride_mg", "mg", "g/d", 1000, T_EL, R_CL,
    "0.18* 0.57* 1.5* 1.9*  2.3* 2.3* 2.3* 2.3* 2.0* 1.8*  2.3* 2.3* 2.3* 2.3* 2.0* 1.8*  2.3* 2.3* 2.3*  2.3* 2.3* 2.3*",
    "UL", T_EL_UL, R_CL,
    "- - 2.3 2.9  3.4 3.6 3.6 3.6 3.6 3.6  3.4 3.6 3.6 3.6 3.6 3.6  3.6 3.6 3.6  3.6 3.6 3.6",
    caveat="the tables print g/d; stored in mg")

# The UL tables print g/d for choline and phosphorus: the limit lists above are already in mg.
LIMIT_FACTOR = {"copper_mg": 0.001, "chloride_mg": 1000}


def fmt(x):
    s = ("%.6f" % x).rstrip("0").rstrip(".")
    return s


def rows():
    out = ["\t".join(["group", "nutrient", "unit", "intake_kind", "intake", "limit_kind", "limit", "intake_source", "limit_source", "caveat"])]
    for n in N:
        assert len(n["intake"]) == 22, (n["id"], len(n["intake"]))
        assert len(n["limit"]) == 22, (n["id"], "limit", len(n["limit"]))
        for gi, g in enumerate(GROUPS):
            cell = n["intake"][gi]
            if cell == "-":
                kind, value, isrc = "none", "", "%s; %s" % (n["table"], n["report"])
            else:
                kind = "AI" if cell.endswith("*") else "RDA"
                value = fmt(float(cell.rstrip("*")) * n["factor"])
                isrc = "%s; %s" % (n["table"], n["report"])
            lcell = n["limit"][gi]
            if lcell == "-" or not n["limit_kind"]:
                lkind, lvalue, lsrc = "none", "", ("%s; %s" % (n["limit_table"], n["limit_report"])) if n["limit_kind"] else ""
            else:
                lkind = n["limit_kind"]
                lvalue = fmt(float(lcell) * LIMIT_FACTOR.get(n["id"], 1))
                lsrc = "%s; %s" % (n["limit_table"], n["limit_report"])
            out.append("\t".join([g, n["id"], n["unit"], kind, value, lkind, lvalue, isrc, lsrc, n["caveat"]]))
    return "\n".join(out) + "\n"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, "Sources", "Nutrition", "Resources", "dri.tsv")
    text = rows()
    if "--check" in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                print("dri.tsv differs from tools/build-dri.py; run python3 tools/build-dri.py", file=sys.stderr)
                return 1
        return 0
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
