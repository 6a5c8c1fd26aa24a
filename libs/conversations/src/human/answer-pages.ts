import type { AnswerPage } from './human-answer.use-case';

/** The answer pages as HTML: plain forms, no script, readable on a phone. */

const escape = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(title)} · Vigil</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
textarea{width:100%;min-height:8rem;font:inherit}button{font:inherit;padding:.5rem 1.2rem;margin-top:.8rem}
.muted{color:#5b6475}.problem{color:#a40e26}blockquote{margin:1rem 0;padding:.5rem 1rem;border-left:4px solid #3b6fd8;background:#f3f6fc}</style>
</head><body>${body}</body></html>`;
}

export function renderAnswerPage(
  page: AnswerPage,
  extra: { accepted?: boolean; problem?: string } = {},
): string {
  switch (page.state) {
    case 'unknown':
      return layout(
        'Link not valid',
        '<h1>This link is not valid</h1><p>Check that the whole link was copied.</p>',
      );
    case 'answered':
      return layout(
        'Answered',
        `<h1>${extra.accepted ? 'Thank you: your answer was received' : 'This question was already answered'}</h1>
<p>"${escape(page.task.title)}" continues${extra.accepted ? '' : ' with the answer it was given'}. Nothing more is needed here.</p>`,
      );
    case 'closed':
      return layout(
        'Closed',
        `<h1>This question can no longer be answered</h1><p>"${escape(page.task.title)}" is ${page.task.status.replace(/_/g, ' ')}.</p>`,
      );
    case 'open': {
      const { task } = page;
      const deadline = task.humanDeadlineAt ? new Date(task.humanDeadlineAt).toUTCString() : null;
      const choices = page.unresolvedWrite
        ? `<p><label><input type="radio" name="resolution" value="done" required> It happened</label><br>
<label><input type="radio" name="resolution" value="not_done"> It did not happen</label></p>
<p><label>The object's id, or a note (optional)<br><textarea name="text" maxlength="10000"></textarea></label></p>`
        : `<p><label>Your answer<br><textarea name="text" maxlength="10000" required></textarea></label></p>`;
      return layout(
        'Your answer is needed',
        `<h1>"${escape(task.title)}" needs your answer</h1>
<blockquote>${escape(task.humanQuestion ?? '(no question was given)')}</blockquote>
${extra.problem ? `<p class="problem">${escape(extra.problem)}</p>` : ''}
<form method="post">${choices}<button type="submit">Send</button></form>
<p class="muted">One answer is taken.${deadline ? ` The task waits until ${escape(deadline)}.` : ''}</p>`,
      );
    }
  }
}

/** The status each page answers with: 409 once answered or closed (a second answer is refused). */
export function answerPageStatus(
  page: AnswerPage,
  extra: { accepted?: boolean; problem?: string } = {},
): number {
  if (page.state === 'unknown') return 404;
  if (page.state === 'open') return extra.problem ? 400 : 200;
  if (page.state === 'answered' && extra.accepted) return 200;
  return 409;
}
