export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
}

/** Sends e-mail. Production: SMTP (`SMTP_URL`); without it there is no mailer at all. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}
