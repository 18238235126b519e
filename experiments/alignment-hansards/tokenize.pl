#!/usr/bin/perl
# Tokenizes "the Hansards way" (what the Hansards test files show), one sentence a line from
# stdin, lowercased:  perl -CSD tokenize.pl en|fr < RAW > TOKENIZED
# Words and punctuation split apart, hyphens inside words made tokens ("peut - être", "two -
# thirds"), numbers kept whole ("1,122", "3.5"), a few abbreviations keep their period ("mr.",
# "hon."); English clitics split before the apostrophe ("john 's", "do n't"); French elisions
# expanded (l' → le, d' → de, qu' → que, s' → se, ...: "le homme", "ce ne est") and the
# contractions au, aux, du, des written "à le", "à les", "de le", "de les" (not in compounds:
# "au - dessus"); another apostrophe is split after ("aujourd' hui"). heed-tokenize's reversible
# tokenizer keeps joiner marks and does not expand elisions.
use utf8;
use strict;
my $lang = shift;
my %keeps_period = map { $_ => 1 } qw(mr mrs ms dr st hon messrs jr sr mm mme mlle no vs etc);
my %elided = (l => "le", d => "de", j => "je", m => "me", t => "te", s => "se", n => "ne",
              c => "ce", qu => "que", jusqu => "jusque", lorsqu => "lorsque",
              puisqu => "puisque", quoiqu => "quoique");
my %contracted = (au => "à le", aux => "à les", du => "de le", des => "de les");
while (my $line = <STDIN>) {
  chomp $line;
  $_ = lc $line;
  s/[\x{00A0}\x{202F}\x{2009}\t]/ /g;
  s/\x{200B}//g;
  s/[\x{2018}\x{2019}\x{02BC}`]/\x27/g;
  s/[\x{201C}\x{201D}]/"/g;
  s/\x{2026}/.../g;
  s/([!?;:()«»"\[\]{}%\$&\/*+=<>\x{2013}\x{2014}])/ $1 /g;
  s/(?<!\d),|,(?!\d)/ , /g;
  s/\.\.\.+/ ... /g;
  s/(?<=\w)-(?=\w)/ - /g;
  if ($lang eq "en") {
    s/(\w)n\x27t\b/$1 n\x27t/g;
    s/(\w)\x27(s|re|ve|ll|d|m)\b/$1 \x27$2/g;
  } else {
    s/\b(jusqu|lorsqu|puisqu|quoiqu|qu|[ldjmtsnc])\x27(?=\w)/$elided{$1} /g;
    s/\x27(?=\w)/\x27 /g;
  }
  my @tokens = split " ";
  my @out;
  for my $k (0 .. $#tokens) {
    my $token = $tokens[$k];
    my $next = $k < $#tokens ? $tokens[$k + 1] : "";
    if ($token =~ /^(.*\w)\.$/ && !$keeps_period{$1} && $1 !~ /^(\w\.)+\w$/) {
      push @out, $1, ".";
    } elsif ($lang eq "fr" && exists $contracted{$token} && $next ne "-") {
      push @out, $contracted{$token};
    } else {
      push @out, $token;
    }
  }
  print join(" ", @out), "\n";
}
