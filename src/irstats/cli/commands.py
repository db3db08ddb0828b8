"""The list of irstats' commands, as data: :mod:`irstats.cli.main` reads it without click,
:mod:`irstats.cli.group` builds the click group from it (each command imported on first use)."""

from __future__ import annotations

#: command name → ("module:attribute", first paragraph of its help), in the order of a study.
#: The help text is what ``irstats --help`` shows without importing the command's module;
#: tests/test_faults_startup.py checks that it matches the command's docstring.
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("irstats.cli.demo_cmd:demo_command",
             "Generate a synthetic test collection (50 topics, 30 runs, pooled graded qrels), evaluate it,\n"
             "and write the full study report on it."),
    "eval": ("irstats.cli.eval_cmd:eval_command",
             "Evaluate RUN files (files, directories or globs; plain or gzip) against QRELS."),
    "trec_eval": ("irstats.cli.trec_eval_cmd:trec_eval_command",
                  "trec_eval 10's command line and output (alias trec_eval='irstats trec_eval')."),
    "diversity": ("irstats.cli.diversity_cmd:diversity_command",
                  "Diversity measures of RUN files against subtopic QRELS: α-nDCG, ERR-IA, NRBP, P-IA, StRecall."),
    "preferences": ("irstats.cli.preferences_cmd:preferences_command",
                    "Preference measures of RUN files against preference judgments PREFS (trec_eval's prefs_*)."),
    "agreement": ("irstats.cli.agreement_cmd:agreement_command",
                  "Agreement of two qrels (Cohen's κ, Krippendorff's α) and of the conclusions they lead to."),
    "ppi": ("irstats.cli.ppi_cmd:ppi_command",
            "Prediction-powered means from human labels on a few topics and cheap labels on all (PPI++)."),
    "repro": ("irstats.cli.repro_cmd:repro_command",
              "Did a reproduction reproduce? KTU, RBO, RMSE, ER, ΔRI and t-tests (Breuer et al., SIGIR 2020)."),
    "aggregate": ("irstats.cli.aggregate_cmd:aggregate_command",
                  "Aggregate per-topic SCORES into one value per system and measure."),
    "standardize": ("irstats.cli.standardize_cmd:standardize_group",
                    "Standardize per-topic scores: z = (x − mean_t)/sd_t over reference systems, then Φ(z)."),
    "compare": ("irstats.cli.compare_cmd:compare_command",
                "Compare every system with a baseline: means, differences and significance per measure."),
    "bayes": ("irstats.cli.bayes_cmd:bayes_command",
              "Bayesian comparison with a baseline: P(worse), P(practically equivalent), P(better) per measure."),
    "meta-analysis": ("irstats.cli.meta_analysis_cmd:meta_analysis_command",
                      "Pool a system's improvement over a baseline across test collections (fixed and random effects)."),
    "anova": ("irstats.cli.anova_cmd:anova_command",
              "ANOVA of the systems of per-topic SCORES: variation, df, variance, F, p, ω², Tukey HSD."),
    "transforms": ("irstats.cli.transforms_cmd:transforms_command",
                   "Which system comparisons change direction or significance when the scores are transformed."),
    "risk": ("irstats.cli.risk_cmd:risk_command",
             "Risk of every system against a baseline: URisk, TRisk, ZRisk and GeoRisk per measure."),
    "topicset": ("irstats.cli.topicset_cmd:topicset_command",
                 "Topics needed to detect a difference with a given power, from a variance or a score file."),
    "power": ("irstats.cli.power_cmd:power_command",
              "Achieved power and the topics needed, from a reported t or F or from per-topic scores."),
    "difficulty": ("irstats.cli.difficulty_cmd:difficulty_command",
                   "Print the difficulty of every topic (rows: topic measure difficulty) from per-topic SCORES."),
    "splithalf": ("irstats.cli.splithalf_cmd:splithalf_command",
                  "Split-half self-consistency of aggregation methods on per-topic SCORES."),
    "predictive": ("irstats.cli.predictive_cmd:predictive_command",
                   "Predictive power φ of measures: how well one measure's system ordering on half of\n"
                   "the topics predicts another's on the other half (Webber et al., SIGIR 2008)."),
    "robustness": ("irstats.cli.robustness_cmd:robustness_command",
                   "Robustness of standardization to the number of standardizing systems (METHODS.md §5.3)."),
    "comparability": ("irstats.cli.comparability_cmd:comparability_command",
                      "Cross-collection comparability of raw, R-normalised and standardized scores "
                      "(METHODS.md §5.4)."),
    "volatility": ("irstats.cli.volatility_cmd:volatility_command",
                   "Volatility over evaluation depth: scores of RUN files at depths k up to and past the pool depth."),
    "report": ("irstats.cli.report_cmd:report_command",
               "Write a complete evaluation study of RUNS against QRELS: HTML and Markdown."),
}

#: Commands that keep a process of their own busy on another core (the report draws its
#: figures' PDFs in a forked child): the BLAS's thread pool would only contend with it for
#: the cores — the report took 10% longer with it on 2 cores — and its products here are
#: small. Set for the process (and so its children) unless the user set the variables.
ONE_BLAS_THREAD = frozenset({"report"})
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
