/**
 * The Java examples of the README, {@code docs/getting-started.md} and {@code docs/dead-letters.md},
 * compiled as shown:
 * {@code ReadmeSnippetsTests} checks that every {@code java} block of those pages is the text of one
 * of these files (after the package line).
 */
package io.batchconsumer.spring.readme;
