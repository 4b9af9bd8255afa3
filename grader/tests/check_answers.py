#!/usr/bin/env python3
"""Every question of a handout has its answer, in the lab's answers file that the student opens
after trying.

A handout's questions are the numbered items ("1. ...") of its section "## Questions"; the
answers are the sections "## Question N" of labs/LAB/answers.md, each with some text. A question
without an answer, an empty answer, or an answer to a question the handout does not ask is
listed. (Whether an answer's figures are logged is check_figures.py's job: answers.md is a doc
like the handouts.)

usage: check_answers.py [ROOT]     prints each problem as FILE: PROBLEM; exit 1 if any
"""
import glob
import os
import re
import sys

QUESTION = re.compile(r"^(\d+)\. \S")
ANSWER = re.compile(r"^## Question (\d+)\s*$")


def questions_of(handout):
    """The numbers of the handout's questions, in order."""
    numbers, inside = [], False
    for line in handout.splitlines():
        if line.startswith("## "):
            inside = line.strip() == "## Questions"
            continue
        match = QUESTION.match(line) if inside else None
        if match:
            numbers.append(int(match.group(1)))
    return numbers


def answers_of(text):
    """{number: the answer's text} of an answers file."""
    answers, current = {}, None
    for line in text.splitlines():
        match = ANSWER.match(line)
        if match:
            current = int(match.group(1))
            answers[current] = ""
        elif line.startswith("## "):
            current = None
        elif current is not None and not line.lstrip().startswith("<!--"):
            answers[current] += line.strip()
    return answers


def check(root):
    problems = []
    for handout_path in sorted(glob.glob(os.path.join(root, "labs", "*", "README.md"))):
        folder = os.path.dirname(handout_path)
        answers_path = os.path.join(folder, "answers.md")
        with open(handout_path, encoding="utf-8") as handout:
            questions = questions_of(handout.read())
        name = os.path.relpath(answers_path, root)
        if not questions:
            continue
        if not os.path.exists(answers_path):
            problems.append(f"{name}: missing: {os.path.relpath(handout_path, root)} asks "
                            f"{len(questions)} questions")
            continue
        with open(answers_path, encoding="utf-8") as file:
            answers = answers_of(file.read())
        for number in questions:
            if number not in answers:
                problems.append(f"{name}: question {number} has no answer (## Question {number})")
            elif not answers[number]:
                problems.append(f"{name}: the answer to question {number} is empty")
        for number in sorted(set(answers) - set(questions)):
            problems.append(f"{name}: answers question {number}, which the handout does not ask")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_answers: {len(problems)} problems: every handout question needs its answer "
              "in the lab's answers.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
