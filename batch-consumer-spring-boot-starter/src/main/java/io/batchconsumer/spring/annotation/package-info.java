/**
 * The {@code @BatchListener} annotation and the bean post-processor that turns annotated
 * methods into listener endpoints.
 */
package io.batchconsumer.spring.annotation;
