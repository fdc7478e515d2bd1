/**
 * A table as rows of cells, rendered for a terminal or as Markdown.
 *
 * @example
 * ```ts
 * renderTable(['case', 'ratio'], [['bearer', '1.02×']], 'markdown');
 * ```
 */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[], format: 'text' | 'markdown'): string {
  if (format === 'markdown') {
    const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
    return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
  }
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}
