/**
 * The README's Java examples, compiled as shown: {@code ReadmeSnippetsTests} checks that every
 * {@code java} block of the README is the text of one of these files (after the package line).
 */
package io.batchconsumer.spring.readme;
