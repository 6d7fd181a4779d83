-- Mail jobs are enqueued with River's own insert, in the transaction of
-- their cause (accounting.queueMail, enqueueMail), no longer by a trigger
-- of the outbox that wrote River's table itself: only River writes its
-- tables, so an upgrade of River that changes them cannot break mail
-- unseen. The requests that must not tell whether an address has an
-- account (sign-up, password reset) enqueue one job whether or not they
-- queued a message.
DROP TRIGGER mail_outbox_job ON mail_outbox;
DROP FUNCTION mail_outbox_job();
DROP FUNCTION mail_job(bigint, timestamptz);
