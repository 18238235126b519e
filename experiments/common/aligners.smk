# What the studies that read attention as word alignments share, by include: the classic
# aligner's links (heed-align ibm2 with fast_align's recommended -d -o -v), the diagonal
# baseline's, and the lift of token links to words that makes silver links where a corpus has no
# gold (the ablation's, on Multi30k; the Hansards study measures how such links agree with gold,
# its results/silver.tsv).
import gzip
import re

#
# The including study sets BIN (heed's binaries), ALIGN_SOURCE and ALIGN_TARGET (the tokenized
# parallel text, a pair a line) and ALIGN_LINKS: ibm2's links are ALIGN_LINKS.fwd (p(target |
# source)) and ALIGN_LINKS.rev (--reverse), each with its wall-clock, ALIGN_LINKS.DIRECTION.seconds.


rule ibm2:
    input:
        ALIGN_SOURCE,
        ALIGN_TARGET,
    output:
        links=ALIGN_LINKS + ".{direction}",
        seconds=ALIGN_LINKS + ".{direction}.seconds",
    wildcard_constraints:
        direction="fwd|rev",
    params:
        bin=BIN,
        flag=lambda wildcards: "--reverse" if wildcards.direction == "rev" else "",
        extra=config.get("ibm2_options") or "",
    threads: int(config["threads"])
    resources:
        mem_mb=4000,
        runtime=60,
    shell:
        """
        start=$(date +%s%N)
        {params.bin}/heed-align ibm2 --favor-diagonal --optimize-tension --variational-bayes \
          --threads {threads} {params.extra} {params.flag} --quiet {input} -o {output.links}
        awk -v ns=$(($(date +%s%N) - start)) 'BEGIN {{ printf "%.2f\\n", ns / 1e9 }}' \
          > {output.seconds}
        """


def text_lines(path):
    """The lines of PATH (gzipped: .gz) as awk and paste read them: ended by "\\n" alone."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8",
                                                       newline="\n") as f:
        return [line[:-1] if line.endswith("\n") else line for line in f]


def awk_split(line):
    """LINE's words as awk splits them: on spaces and tabs only (str.split would also split on a
    no-break space)."""
    return re.findall(r"[^ \t]+", line)


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in lines)


def diagonal_links(source, target):
    """The diagonal baseline, the links that need no training: in each pair of the files SOURCE
    and TARGET, every target word j linked to the source word at the same relative position,
    ⌊(j + ½)·|source|/|target|⌋."""
    lines = []
    for s, t in zip(text_lines(source), text_lines(target)):
        ns, nt = len(awk_split(s)), len(awk_split(t))
        lines.append(" ".join(f"{int((j + 0.5) * ns / nt)}-{j}" for j in range(nt) if ns))
    return lines


def transposed(lines):
    """Pharaoh links i-j as j-i."""
    return [" ".join("-".join(link.split("-")[::-1]) for link in awk_split(line))
            for line in lines]


def lifted_links(source_tokens, target_tokens, links):
    """Token links (i-j, of the lines of LINKS) as links between the words the tokens belong to,
    each word pair once, sorted: a token carrying a joiner ￭ on its left, or following one that
    carries it on its right, is in the word before it (heed-align extract lifts subwords so)."""
    def words(line):
        tokens, word, index = awk_split(line), -1, []
        for k, token in enumerate(tokens):
            if k == 0 or not (token.startswith("￭") or tokens[k - 1].endswith("￭")):
                word += 1
            index.append(word)
        return index

    lifted = []
    for source, target, line in zip(text_lines(source_tokens), text_lines(target_tokens),
                                    text_lines(links)):
        s, t = words(source), words(target)
        pairs = {(s[int(i)], t[int(j)]) for i, j in (link.split("-") for link in awk_split(line))}
        lifted.append(" ".join(f"{a}-{b}" for a, b in sorted(pairs)))
    return lifted
